/**
 * Magnitudes accepted wherever a number is added up or stored. Beyond them a sum may reach
 * infinity, which JSON writes as null and no running total subtracts back out;
 * 1e15 still holds every amount to the cent exactly (below 2^53 / 100).
 */
export const MAX_AMOUNT = 1e15;
/** Rule weights and thresholds: 100 evaluations per rule of this weight stay far from overflow. */
export const MAX_WEIGHT = 1e9;

export const sci = (n: number): string => n.toExponential().replace('e+', 'e');
