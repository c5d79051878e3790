import type { ServiceModule } from './types.js';
import { videoRouter } from '../api/video/routes.js';

/**
 * Video production (Document 2), part 1 foundation: the script compiler and moods over HTTP.
 * It has no topics, tables or workers yet: the render worker pool (`--role=render`), jobs, assets,
 * templates, principals and bearer tokens come later.
 */
export const videoService: ServiceModule = {
  name: 'video',
  topics: [],
  migrations: [],
  async create({ platform, keys }) {
    return { router: videoRouter({ platform, keys }) };
  },
};
