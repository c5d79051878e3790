import type { ServiceModule } from './types.js';
import { counterColumnsOf, countersService, createCounterReader } from './counters.js';
import { rulesService } from './rules.js';
import { screeningService } from './screening.js';
import { analyticsService } from './analytics.js';
import { riskService } from './risk.js';
import { syncRiskWebhooks, webhooksService } from './webhooks.js';
import { videoService } from './video.js';
import { studioService } from './studio.js';

/** Every service of the process, in mount order. A new service is a new module added here. */
export const services: ServiceModule[] = [
  countersService,
  rulesService({ counters: createCounterReader }),
  screeningService,
  analyticsService({ counterColumns: counterColumnsOf }),
  riskService({ onWebhookConfig: syncRiskWebhooks }),
  webhooksService,
  videoService,
  studioService,
];
