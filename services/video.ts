import type { ServiceModule } from './types.js';
import { videoRouter } from '../api/video/routes.js';
import { principalsMigration } from '../api/video/auth/principal-store.js';

/**
 * Video production (Document 2), part 1: the script compiler and moods over HTTP, database-backed
 * principals (table `video_principals`), bearer tokens, OAuth client credentials and the MCP agent
 * transport.
 */
export const videoService: ServiceModule = {
  name: 'video',
  topics: [],
  migrations: [principalsMigration],
  async create({ platform, keys }) {
    return { router: videoRouter({ platform, keys }) };
  },
};
