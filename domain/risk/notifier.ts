/**
 * Where one-time codes go (CONTRACTS.md section 5): a notifier port. The default publishes to the
 * `notifications.otp` topic, keyed by organization, for the sender that owns email and SMS.
 */
export interface OtpMessage {
  org_id: string;
  challenge_id: string;
  channel: 'email' | 'sms';
  destination: string;
  code: string;
  expires_at: string;
}

export interface OtpNotifier {
  /** Resolves once the message is durably handed over. */
  send(message: OtpMessage): Promise<void>;
}

export const OTP_TOPIC = 'notifications.otp';

export function topicNotifier(publish: (topic: string, key: string, value: OtpMessage) => Promise<void>): OtpNotifier {
  return { send: (m) => publish(OTP_TOPIC, m.org_id, m) };
}
