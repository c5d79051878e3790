/**
 * The one entity model every list parser maps into (watchman's `search.Entity`): a listed party with
 * its names, identifying facts, programs and free-text remarks.
 */
export const ENTITY_TYPES = ['person', 'organization', 'vessel', 'aircraft'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

/** `sanctions` for asset-freeze and blocking lists, `export_control` for trade lists, `pep` for PEP lists. */
export const LIST_TYPES = ['sanctions', 'export_control', 'pep'] as const;
export type ListType = (typeof LIST_TYPES)[number];

export const RELATIONSHIP_TYPES = ['family_member', 'associate', 'owner', 'owned_by', 'employee', 'agent_of', 'linked_to'] as const;
export type RelationshipType = (typeof RELATIONSHIP_TYPES)[number];

/** stated: explicit in the source data; inferred: derived from a phrase pattern; weak: a lead to investigate. */
export const CONFIDENCES = ['stated', 'inferred', 'weak'] as const;
export type Confidence = (typeof CONFIDENCES)[number];

export interface Address {
  /** Street, city, region and postal code as one line, in the list's order. */
  line: string;
  country: string;
}

export interface NameVariant {
  name: string;
  kind: 'primary' | 'aka' | 'fka' | 'nka' | 'original_script';
  /**
   * A weak alias: one the publisher marks as too common to identify the party alone (OFAC's quoted
   * a.k.a.s in remarks and low-quality flag, the UN's `Low` quality, the UK's `Low quality`).
   */
  weak?: true;
}

/** A relationship a structured format states with a type (e.g. OFAC enhanced XML `<relationship>`). */
export interface TypedRelation {
  type: RelationshipType;
  detail: string;
  targetName: string;
  /** Native id of the target in the same list, when the format gives it. */
  targetNativeId?: string;
}

export interface SanctionEntity {
  /** Unique across lists: `<list id>-<native id>`, e.g. `ofac-sdn-7739`. */
  id: string;
  /** The id the publisher uses (ent_num, DATAID, Group ID...). */
  nativeId: string;
  /** Code of the issuing list, e.g. `OFAC-SDN` (the `source` field of a match). */
  source: string;
  listType: ListType;
  type: EntityType;
  /** Primary name first, then aliases; duplicates removed. */
  names: NameVariant[];
  /** `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, or a year range `YYYY..YYYY`. */
  datesOfBirth: string[];
  /** ISO 3166 alpha-2 codes where the country could be recognised, else the text as given. */
  nationalities: string[];
  addresses: Address[];
  programs: string[];
  remarks: string;
  relations: TypedRelation[];
  /**
   * Ids of the same party on other lists, as the publisher states them (the UK list's UN reference,
   * the CSL's OFAC entity number): `un-KPi.013`, `ofac-sdn-7739`. Ids absent from a snapshot are ignored.
   */
  sameAs: string[];
}

export const primaryName = (e: SanctionEntity): string => e.names[0]?.name ?? e.nativeId;
