import { ensureStudio } from '../api/studio/bundle.js';
import { studioRouter } from '../api/studio/router.js';
import { servesHttp, type ServiceModule } from './types.js';

/**
 * The studio (issue 34): a web page at /studio/ for writing, previewing and rendering scripts on the
 * video service's routes. No topics, no tables: a bundle made at build time (or on start, from
 * source) and served as files.
 */
export const studioService: ServiceModule = {
  name: 'studio',
  topics: [],
  migrations: [],
  async create({ role }) {
    if (!servesHttp(role)) return {};
    return { router: studioRouter(await ensureStudio()) };
  },
};
