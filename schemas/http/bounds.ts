import { z } from 'zod';
import { sci } from '../../domain/bounds.js';

/** A finite number of at most `max` in magnitude, the limit named in the message. */
export const boundedNumber = (max: number) =>
  z
    .number()
    .finite()
    .min(-max, `must be at least -${sci(max)}`)
    .max(max, `must be at most ${sci(max)}`);
