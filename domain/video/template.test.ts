import { describe, expect, it } from 'vitest';
import { fillVariables, type TemplateVariable } from './template.js';

const variables: TemplateVariable[] = [
  { name: 'product', type: 'string', required: true },
  { name: 'price', type: 'number', required: false, default: 9 },
  { name: 'sale', type: 'boolean', required: true },
  { name: 'note', type: 'string', required: false },
];

describe('template variables', () => {
  it('keeps given values, fills defaults, leaves optional ones without a default out', () => {
    expect(fillVariables({ variables }, { product: 'Weir', sale: false })).toEqual({ ok: true, values: { product: 'Weir', price: 9, sale: false } });
    expect(fillVariables({ variables }, { product: 'Weir', sale: true, price: 0 })).toEqual({ ok: true, values: { product: 'Weir', price: 0, sale: true } });
  });

  it('reports every problem at once: undeclared, missing required, wrong types (NaN and null included)', () => {
    expect(fillVariables({ variables }, { extra: 1, price: Number.NaN, note: null })).toEqual({
      ok: false,
      issues: [
        { variable: 'extra', message: 'is not a variable of this template (it has product, price, sale, note)' },
        { variable: 'product', message: 'is required (a string)' },
        { variable: 'price', message: 'must be a finite number, got number' },
        { variable: 'sale', message: 'is required (a boolean)' },
        { variable: 'note', message: 'must be a string, got null' },
      ],
    });
  });

  it('does not read inherited properties as values', () => {
    expect(fillVariables({ variables: [{ name: 'toString', type: 'string', required: true }] }, {})).toMatchObject({ ok: false });
  });
});
