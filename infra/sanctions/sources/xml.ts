import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ListParseError } from './types.js';

/** Parses an XML list file; a syntax error names the file and line. Values stay text (ids like 0012 keep zeros). */
export function readXml(text: string, file: string, arrays: ReadonlySet<string>): Record<string, unknown> {
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new ListParseError(file, valid.err.line, valid.err.msg);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    isArray: (name) => arrays.has(name),
  });
  return parser.parse(text) as Record<string, unknown>;
}

/** Text of an element that may be absent, empty (`<X/>` parses as ''), or carry attributes. */
export function text(node: unknown): string {
  if (node === undefined || node === null) return '';
  if (typeof node === 'string') return node.trim();
  if (typeof node === 'object' && '#text' in node) return String((node as Record<string, unknown>)['#text']).trim();
  return '';
}

export const list = <T = Record<string, unknown>>(node: unknown): T[] => (Array.isArray(node) ? (node as T[]) : node === undefined || node === '' ? [] : [node as T]);
