/**
 * Risk points of each signal (0 to 100; a signal of p points alone scores p) and the thresholds.
 * Spec keys: thresholds, ip.tor, ip.vpn, velocity.abuse, features; the rest are this service's.
 */
export const DEFAULT_POINTS = {
  ip: { tor: 60, vpn: 30, proxy: 35, datacenter: 25, known_fraud: 75, high_risk_country: 35 },
  email: { disposable: 45, suspicious_pattern: 20, disposable_keyword: 25, random_characters: 25, long_numeric: 15, suspicious_tld: 20 },
  phone: { invalid: 30, hlr_failed: 40, voip: 25, recently_ported: 30, sim_swap: 60 },
  behavior: { bot: 70, non_human_mouse: 35, automated_keystrokes: 35, unnatural_session: 20, emulator: 50, biometric_deviation: 30 },
  velocity: { abuse: 40, impossible_travel: 50, physically_impossible: 65 },
  session: { new_device: 10, new_country: 15, unusual_time: 10, new_account: 10, anomalies: 20 },
  continuous_auth: { mouse_deviation: 15, keystroke_deviation: 15, session_deviation: 15, rapid_device_addition: 30, device_divergence: 20, low_consistency: 20 },
  fraud_ring: { high: 60, moderate: 30, device_added_24h: 25, device_sharing: 35 },
} as const;
