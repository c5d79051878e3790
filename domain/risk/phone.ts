import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { Signal } from './signal.js';

/**
 * Phone signals. Format and line type come from libphonenumber's full metadata (pure, in process);
 * HLR and SIM swap come from a carrier-data provider when one is configured (PhoneProvider), and
 * are simply absent otherwise: no answer is ever made up.
 */

export interface CarrierLookup {
  /** The network answered that the number is live (HLR). */
  reachable: boolean;
  /** Days since the number was last ported to another carrier, if known. */
  portedDaysAgo?: number;
  simSwap?: { risk: 'low' | 'medium' | 'high'; daysAgo: number };
}

/** A carrier-data (HLR / SIM swap) provider; none is configured by default. */
export interface PhoneProvider {
  lookup(e164: string): Promise<CarrierLookup>;
}

export interface PhoneFacts {
  valid: boolean;
  type: string | null;
  country: string | null;
}

export function phoneFacts(e164: string): PhoneFacts {
  const n = parsePhoneNumberFromString(e164);
  if (!n) return { valid: false, type: null, country: null };
  return { valid: n.isValid(), type: n.getType() ?? null, country: n.country ?? null };
}

/** Porting or a SIM swap within this many days is a takeover risk. */
export const RECENT_DAYS = 30;

export function phoneSignals(f: PhoneFacts, carrier: CarrierLookup | null): Signal[] {
  const out: Signal[] = [];
  if (!f.valid) out.push({ key: 'phone.invalid', reason: 'Invalid phone number format' });
  if (f.type === 'VOIP') out.push({ key: 'phone.voip', reason: 'VoIP number detected' });
  if (carrier) {
    if (!carrier.reachable) out.push({ key: 'phone.hlr_failed', reason: 'Phone number validation failed (HLR)' });
    if (carrier.portedDaysAgo !== undefined && carrier.portedDaysAgo <= RECENT_DAYS) out.push({ key: 'phone.recently_ported', reason: 'Recently ported number (SIM swap risk)' });
    const swap = carrier.simSwap;
    if (swap && swap.daysAgo <= RECENT_DAYS) {
      out.push({ key: 'phone.sim_swap', reason: `SIM swap detected (${swap.risk} risk, ${swap.daysAgo} days ago)`, strength: swap.risk === 'high' ? 1 : swap.risk === 'medium' ? 0.66 : 0.33 });
    }
  }
  return out;
}
