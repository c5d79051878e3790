import { z } from 'zod';

/**
 * The body of what the edge itself answers before a service sees the request (api/app.ts): the
 * edge-wide rate limit's 429 and unknown paths' 404, in the standard error style.
 */
export const edgeErrorBody = z
  .object({
    status: z.literal('error'),
    error: z.string().meta({ description: 'Machine-readable reason: rate_limited, not_found' }),
    message: z.string().meta({ description: 'What is wrong' }),
    request_id: z.string(),
  })
  .meta({ id: 'EdgeError' });
