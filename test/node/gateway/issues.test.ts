/**
 * `parseOrIssues` (src/server/gateway/issues.ts), the one check the client's `validate`
 * and the sandbox's share: the parsed data, or field issues that name each field and rule,
 * "is required" for a missing one, and never a value.
 */
import {describe, it} from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod';
import {parseOrIssues} from '../../../src/server/gateway/index.js';

const Schema = z.strictObject({
  amount: z.string().regex(/^\d+(\.\d{1,2})?$/, 'must be a decimal with at most 2 digits'),
  card: z.object({number: z.string().length(16, 'must be 16 digits')}),
  count: z.coerce.number().int(),
});

describe('parseOrIssues', () => {
  it('gives the parsed data, transformed as the schema says', () => {
    const result = parseOrIssues(Schema, {
      amount: '12.50',
      card: {number: '4242424242424242'},
      count: '3',
    });
    assert.deepEqual(result, {
      ok: true,
      data: {amount: '12.50', card: {number: '4242424242424242'}, count: 3},
    });
  });

  it('names every field and rule, a missing one as required, an unknown one as not a field', () => {
    const input = {amount: '1.234', card: {number: '4242 4242 4242 424'}, extra: 1};
    const result = parseOrIssues(Schema, input);
    assert.equal(result.ok, false);
    assert.deepEqual(!result.ok && result.issues, [
      {field: 'amount', message: 'must be a decimal with at most 2 digits'},
      {field: 'card.number', message: 'must be 16 digits'},
      {field: 'count', message: 'is required'},
      {field: 'extra', message: 'is not a field of this request'},
    ]);
    assert.doesNotMatch(JSON.stringify(result), /4242|1\.234/, 'a value in the issues');
  });

  it('reads a body that is not an object as one issue of the body', () => {
    const result = parseOrIssues(Schema, 'not json');
    assert.deepEqual(!result.ok && result.issues.map((i) => i.field), ['(body)']);
  });
});
