import type { EntityType } from '../../../domain/screening/entity.js';

const ORGANIZATION_WORDS =
  /\b(ltd|llc|l\.l\.c|inc|corp|corporation|co|company|companies|gmbh|limited|group|holding|holdings|industries|industrial|industry|trading|technolog(y|ies)|bank|institute|university|academy|jsc|ojsc|llp|plc|s\.a|sa|srl|bv|enterprises?|international|services|systems|electronics|engineering|logistics|shipping|import|export|research|center|centre|factory|plant|bureau|ministry|department|agency|organi[sz]ation|association|foundation|laborator(y|ies)|works|ooo|zao|oao|pao|pjsc|cjsc|fze|fzco|dmcc|sarl|spa|ag|kg|pte|pty|bhd|ltda)\b/i;

/** Lists without a party type (BIS, State): a name with a corporate word is an organization, else a person. */
export const guessType = (name: string): EntityType => (ORGANIZATION_WORDS.test(name) ? 'organization' : 'person');
