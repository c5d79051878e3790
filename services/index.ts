import type { ServiceModule } from './types.js';
import { countersService, createCounterReader } from './counters.js';
import { rulesService } from './rules.js';
import { screeningService } from './screening.js';
import { videoService } from './video.js';

/** Every service of the process, in mount order. A new service is a new module added here. */
export const services: ServiceModule[] = [countersService, rulesService({ counters: createCounterReader }), screeningService, videoService];
