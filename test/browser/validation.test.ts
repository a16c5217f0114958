// Validation matrix: card numbers across brands, expiry edge cases and CVV rules, through the
// pure helpers the card form uses (card-validator underneath).
import {expect} from '@open-wc/testing';
import {
  caretAfterDigits,
  formatExpiry,
  formatNumber,
  normaliseNumber,
  parseExpiry,
  validateCvv,
  validateExpiry,
  validateNumber,
} from '../../src/validation/card.js';

const CARDS: Array<[string, string, string, string]> = [
  // brand, number, formatted, test name
  ['visa', '4242424242424242', '4242 4242 4242 4242', 'Visa 16'],
  ['visa', '4111111111111111', '4111 1111 1111 1111', 'Visa 4111'],
  ['mastercard', '2223003122003222', '2223 0031 2200 3222', 'Mastercard 2-series'],
  ['mastercard', '5555555555554444', '5555 5555 5555 4444', 'Mastercard 5-series'],
  ['american-express', '378282246310005', '3782 822463 10005', 'Amex 15 (4-6-5)'],
  ['discover', '6011111111111117', '6011 1111 1111 1117', 'Discover'],
  ['jcb', '3530111333300000', '3530 1113 3330 0000', 'JCB'],
  ['diners-club', '36227206271667', '3622 720627 1667', 'Diners 14 (4-6-4)'],
  ['unionpay', '6200000000000005', '6200 0000 0000 0005', 'UnionPay'],
  ['maestro', '675964982648', '6759 6498 2648', 'Maestro 12'],
  ['maestro', '6759649826438008', '6759 6498 2643 8008', 'Maestro 16'],
  ['maestro', '6799990100000000019', '6799 9901 0000 0000 019', 'Maestro 19'],
];

describe('card number validation', () => {
  for (const [brand, number, formatted, name] of CARDS) {
    it(`accepts ${name} as ${brand} and groups it`, () => {
      const result = validateNumber(number);
      expect(result.brand?.type).to.equal(brand);
      expect(result.isValid, 'valid').to.equal(true);
      expect(formatNumber(number, result.brand)).to.equal(formatted);
    });
  }

  it('rejects a Luhn-invalid Visa number of full length', () => {
    const result = validateNumber('4242424242424241');
    expect(result.isValid).to.equal(false);
    expect(result.isPotentiallyValid).to.equal(true); // Visa may have 19 digits
    const amex = validateNumber('378282246310006');
    expect(amex.isValid).to.equal(false);
    expect(amex.isPotentiallyValid).to.equal(false);
  });

  it('treats a prefix as potentially valid but not valid', () => {
    const result = validateNumber('424242');
    expect(result.isValid).to.equal(false);
    expect(result.isPotentiallyValid).to.equal(true);
  });

  it('reports no brand for an unknown prefix', () => {
    expect(validateNumber('9999').brand).to.equal(null);
  });

  it('accepts a Luhn-valid number of a scheme card-validator does not know (Prostir 9804…)', () => {
    // No brand claims it: the gateway's rule alone (12 to 19 digits passing Luhn) decides.
    const prostir = validateNumber('9804000000000009');
    expect(prostir.brand).to.equal(null);
    expect(prostir.isValid).to.equal(true);
    expect(validateNumber('980400000000').isPotentiallyValid).to.equal(true);
  });

  it('accepts a number only at a length its brand has, and holds UnionPay to Luhn too', () => {
    const visa13 = validateNumber('4222222222222');
    expect(visa13.isValid, 'a 13-digit Visa').to.equal(false);
    expect(visa13.isPotentiallyValid, 'Visa numbers may have 16 digits').to.equal(true);
    expect(visa13.problem).to.equal('length');
    const mastercard15 = validateNumber('555555555555442');
    expect(mastercard15.isValid, 'a 15-digit Mastercard').to.equal(false);
    expect(mastercard15.problem).to.equal('length');
    expect(validateNumber('6200000000000005').isValid).to.equal(true);
    const unionpay = validateNumber('6200000000000006');
    expect(unionpay.isValid, 'UnionPay failing Luhn').to.equal(false);
    expect(unionpay.problem, 'card-validator takes it, the gateway does not').to.equal('gateway');
    expect(validateNumber('42424242424').isValid, '11 digits').to.equal(false);
  });

  it('gives Amex a 4-digit code and Visa a 3-digit one', () => {
    expect(validateNumber('378282246310005').brand?.codeSize).to.equal(4);
    expect(validateNumber('4242424242424242').brand?.codeSize).to.equal(3);
  });

  it('normalises a pasted number with spaces and dashes and cuts it to the brand maximum', () => {
    expect(normaliseNumber('4242 4242-4242 4242').digits).to.equal('4242424242424242');
    expect(normaliseNumber('3782 822463 100051234').digits).to.equal('378282246310005');
    expect(normaliseNumber('4242424242424242424242').digits).to.have.length(19);
  });
});

describe('expiry validation', () => {
  const now = new Date();
  const mm = (m: number) => String(m).padStart(2, '0');
  const yy = (y: number) => String(y % 100).padStart(2, '0');

  it('accepts the current month', () => {
    const text = `${mm(now.getMonth() + 1)} / ${yy(now.getFullYear())}`;
    const result = validateExpiry(text);
    expect(result.isValid).to.equal(true);
    expect(result.month).to.equal(now.getMonth() + 1);
    expect(result.year).to.equal(now.getFullYear());
  });

  it('rejects a month that is over everywhere', () => {
    // Today in UTC−12, the earliest time zone, then the month before it.
    const earliest = new Date(Date.now() - 12 * 3600_000);
    const last = new Date(Date.UTC(earliest.getUTCFullYear(), earliest.getUTCMonth() - 1, 1));
    const result = validateExpiry(`${mm(last.getUTCMonth() + 1)} / ${yy(last.getUTCFullYear())}`);
    expect(result.isValid).to.equal(false);
    expect(result.isPotentiallyValid).to.equal(false);
    expect(result.problem).to.equal('past');
  });

  it('accepts last month while it lasts in UTC−12, and refuses it after', () => {
    // 1 March 2030, 11:00 UTC: still 28 February in UTC−12.
    expect(validateExpiry('02 / 30', new Date(Date.UTC(2030, 2, 1, 11))).isValid).to.equal(true);
    expect(validateExpiry('02 / 30', new Date(Date.UTC(2030, 2, 1, 12))).problem).to.equal('past');
  });

  it('accepts a year up to 19 ahead, as card-validator does, and says a later one is too far', () => {
    expect(validateExpiry(`12 / ${yy(now.getFullYear() + 19)}`).isValid).to.equal(true);
    const far = validateExpiry(`01 / ${yy(now.getFullYear() + 20)}`);
    expect([far.isValid, far.isPotentiallyValid, far.problem]).to.deep.equal([false, false, 'far']);
  });

  it('rejects month 13 and month 00', () => {
    expect(validateExpiry('13 / 30').isValid).to.equal(false);
    expect(validateExpiry('00 / 30').isPotentiallyValid).to.equal(false);
  });

  it('reads 1/29 as 01 / 29', () => {
    expect(parseExpiry('1/29')).to.deep.equal({kind: 'date', month: '1', year: '29', text: '1/29'});
    expect(formatExpiry('1/29')).to.equal('01 / 29');
  });

  it('pads a single month digit above 1 and inserts the separator; waits while 1, 2 or 12 may go on', () => {
    expect(formatExpiry('4')).to.equal('04 / ');
    expect(formatExpiry('1')).to.equal('1');
    expect(formatExpiry('2'), 'may begin 2034-10').to.equal('2');
    expect(formatExpiry('12'), 'may be 12 / … or 1 / 2…').to.equal('12');
    expect(formatExpiry('12/')).to.equal('12 / ');
    expect(formatExpiry('12/', false)).to.equal('12');
    expect(formatExpiry('1229')).to.equal('12 / 29');
    expect(formatExpiry('12/2029')).to.equal('12 / 29');
  });

  it('reads digits without a separator as card-validator does: 13 is 1 / 3, 1330 is 1 / 330', () => {
    expect(formatExpiry('13')).to.equal('01 / 3');
    expect(formatExpiry('134')).to.equal('01 / 34');
    expect(formatExpiry('12034')).to.equal('01 / 34');
    expect(validateExpiry('12034').year).to.equal(2034);
    expect(formatExpiry('13/30'), 'typed with its separator, 13 is a month').to.equal('13 / 30');
    const result = validateExpiry('13 / 30');
    expect(result).to.deep.equal({isValid: false, isPotentiallyValid: false, problem: 'month'});
  });

  it('reads every spelling of a date as MM / YY', () => {
    const year = now.getFullYear() + 3;
    const y4 = String(year);
    for (const text of [
      `10/${yy(year)}`,
      `10/${y4}`,
      `10 / ${y4}`,
      `10${yy(year)}`,
      `10${y4}`,
      `10 ${yy(year)}`,
      `10-${yy(year)}`,
      `10.${y4}`,
      `${y4}-10`,
      `${y4}/10`,
    ]) {
      expect(formatExpiry(text), text).to.equal(`10 / ${yy(year)}`);
      expect(validateExpiry(text), text).to.deep.include({isValid: true, month: 10, year});
    }
    for (const text of [`1/${yy(year)}`, `1 ${yy(year)}`, `1.${y4}`, `${y4}-1`, `1${y4}`]) {
      expect(validateExpiry(text), text).to.deep.include({isValid: true, month: 1, year});
    }
  });

  it('keeps a four-digit year on its way: 01 / 20 and 01 / 203 are not over', () => {
    expect(validateExpiry('01 / 20').isPotentiallyValid).to.equal(true);
    expect(validateExpiry('01 / 203').isPotentiallyValid).to.equal(true);
    expect(formatExpiry('01 / 2034')).to.equal('01 / 34');
    expect(formatExpiry('2034')).to.equal('2034');
    expect(validateExpiry('2034').isPotentiallyValid).to.equal(true);
    expect(formatExpiry('2034-1')).to.equal('2034-1');
    expect(formatExpiry('2034-10')).to.equal('10 / 34');
  });

  it('keeps the separator of an impossible month, so formatting again changes nothing', () => {
    // Without it, "40" would be read as month 04 and year 0.
    expect(formatExpiry('40.', false)).to.equal('40 / ');
    expect(formatExpiry('40 / ', false)).to.equal('40 / ');
    expect(formatExpiry('13/', false)).to.equal('13 / ');
    expect(formatExpiry('40.')).to.equal('40 / ');
    expect(formatExpiry('40/2')).to.equal('40 / 2');
    expect(validateExpiry('40 / ').problem).to.equal('month');
  });

  it('treats a partial expiry as potentially valid', () => {
    expect(validateExpiry('1').isPotentiallyValid).to.equal(true);
    expect(validateExpiry('12 / ').isPotentiallyValid).to.equal(true);
    expect(validateExpiry('12 / 2').isPotentiallyValid).to.equal(true);
    expect(
      validateExpiry('12 / 1').isPotentiallyValid,
      'card-validator waits for a second digit',
    ).to.equal(true);
    expect(validateExpiry('12 / 19').isPotentiallyValid).to.equal(false);
  });
});

describe('CVV validation', () => {
  const visa = validateNumber('4242424242424242').brand;
  const amex = validateNumber('378282246310005').brand;

  it('takes the brand’s length: 3 on Visa, 4 on American Express', () => {
    expect(validateCvv('123', visa).isValid).to.equal(true);
    expect(validateCvv('1234', visa).isValid).to.equal(false);
    expect(validateCvv('1234', amex).isValid).to.equal(true);
    expect(validateCvv('123', amex).isValid, 'an Amex CID is 4 digits').to.equal(false);
    for (const brand of [visa, amex, null]) {
      expect(validateCvv('12', brand).isValid).to.equal(false);
      expect(validateCvv('12345', brand).isValid).to.equal(false);
    }
  });

  it('treats a code shorter than the brand’s as still being typed', () => {
    expect(validateCvv('12', visa).isPotentiallyValid).to.equal(true);
    expect(validateCvv('123', amex).isPotentiallyValid).to.equal(true);
  });

  it('rejects letters in the CVV', () => {
    expect(validateCvv('12a', visa).isValid).to.equal(false);
    expect(validateCvv('12a', visa).isPotentiallyValid).to.equal(false);
  });

  it('accepts 3 or 4 digits while the brand is unknown', () => {
    expect(validateCvv('123', null).isValid).to.equal(true);
    expect(validateCvv('1234', null).isValid).to.equal(true);
  });
});

describe('caret placement', () => {
  it('puts the caret after the n-th digit, skipping group spaces', () => {
    expect(caretAfterDigits('4242 4242 4242', 5)).to.equal(6);
    expect(caretAfterDigits('4242 4242 4242', 4)).to.equal(4);
    expect(caretAfterDigits('04 / ', 2)).to.equal(5);
    expect(caretAfterDigits('4242', 0)).to.equal(0);
  });
});
