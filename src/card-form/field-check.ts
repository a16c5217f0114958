/**
 * What `<pg-card-form>` says about each of its fields, and what it sends for them. The
 * card fields' verdicts are card-validator's with the gateway's rules on top
 * (`src/validation/`): a number at a length its brand does not have says which lengths the
 * brand has, a code asks for its brand's length, an expiry says whether its month is no
 * month, over, or too far ahead. The other fields' come from the project's field rules
 * (`src/rules/`), the ones the checkout protocol and the gateway model apply too. The
 * values sent are the rules' normalised ones (`(050) 123-45-67` goes out as `0501234567`).
 * Pure: no DOM, no state.
 */
import type {CardField} from '../events/events.js';
import {fill, formatCountsOr, type CheckoutMessages} from '../i18n/messages.js';
import {checkCardNumber, checkCvv, normaliseCardNumber, normaliseCvv} from '../rules/card.js';
import {
  HOLDER_MAX_LENGTH,
  NAME_MAX_LENGTH,
  checkEmail,
  checkName,
  checkPhone,
} from '../rules/customer.js';
import {validateCvv, validateExpiry, validateNumber, type CardBrand} from '../validation/card.js';

export interface FieldCheck {
  valid: boolean;
  /** Still typing towards something valid: no error shown while the field has focus. */
  potentiallyValid: boolean;
  /** The localised message when not valid; empty when valid. */
  message: string;
}

const OK: FieldCheck = {valid: true, potentiallyValid: true, message: ''};

const refuse = (message: string, potentiallyValid: boolean): FieldCheck => ({
  valid: false,
  potentiallyValid,
  message,
});

/**
 * Checks what the customer typed into field `name`. `brand` is the detected card brand
 * (for the code's length); `lang` the language of the texts (for numbers in them); `now`
 * is for tests.
 */
export function checkField(
  name: CardField,
  raw: string,
  t: CheckoutMessages,
  brand: CardBrand | null,
  now: Date = new Date(),
  lang = 'en',
): FieldCheck {
  switch (name) {
    case 'number': {
      const digits = normaliseCardNumber(raw);
      if (digits === '') return refuse(t.numberRequired, true);
      const v = validateNumber(digits);
      if (v.isValid) return OK;
      // A UnionPay number failing Luhn may be a real card: the gateway does not take it.
      const message =
        v.problem === 'gateway'
          ? t.cardNotAccepted
          : v.problem === 'length'
            ? fill(
                t.numberLength,
                {brand: v.brand!.niceType, lengths: formatCountsOr(v.brand!.lengths, lang)},
                lang,
              )
            : t.numberInvalid;
      return refuse(message, v.isPotentiallyValid);
    }
    case 'expiry': {
      if (!raw.trim()) return refuse(t.expiryRequired, true);
      const v = validateExpiry(raw, now);
      if (v.isValid) return OK;
      const message =
        v.problem === 'past'
          ? t.expiryPast
          : v.problem === 'month'
            ? t.expiryMonth
            : v.problem === 'far'
              ? t.expiryFar
              : t.expiryInvalid;
      return refuse(message, v.isPotentiallyValid);
    }
    case 'cvv': {
      const code = normaliseCvv(raw);
      if (code === '') return refuse(t.cvvRequired, true);
      const v = validateCvv(code, brand);
      if (v.isValid) return OK;
      return refuse(fill(t.cvvInvalid, brand?.codeSize ?? 3, lang), v.isPotentiallyValid);
    }
    case 'holder':
    case 'firstName':
    case 'lastName': {
      const max = name === 'holder' ? HOLDER_MAX_LENGTH : NAME_MAX_LENGTH;
      const result = checkName(raw, max);
      if (result.ok) return OK;
      return result.problem === 'required'
        ? refuse(t.required, true)
        : refuse(fill(t.tooLong, max), false);
    }
    case 'email': {
      const result = checkEmail(raw);
      if (result.ok) return OK;
      switch (result.problem) {
        case 'required':
          return refuse(t.required, true);
        case 'latin':
          // Typing on cannot help: say at once that the keyboard needs switching.
          return refuse(t.emailLatin, false);
        case 'format':
          return refuse(t.emailInvalid, true);
      }
      break;
    }
    case 'phone': {
      const result = checkPhone(raw);
      if (result.ok) return OK;
      switch (result.problem) {
        case 'required':
          return refuse(t.required, true);
        case 'characters':
          return refuse(t.phoneInvalid, false);
        case 'too-short':
          return refuse(t.phoneTooShort, true);
        case 'too-long':
          return refuse(t.phoneTooLong, false);
      }
    }
  }
  return OK;
}

/**
 * The value sent for a text field: the rule's normalised value (digits of the card
 * number, the phone without separators, names and address trimmed). Only called for
 * fields that {@link checkField} found valid.
 */
export function fieldValue(name: Exclude<CardField, 'expiry'>, raw: string): string {
  const result =
    name === 'number'
      ? checkCardNumber(raw)
      : name === 'cvv'
        ? checkCvv(raw)
        : name === 'email'
          ? checkEmail(raw)
          : name === 'phone'
            ? checkPhone(raw)
            : checkName(raw, name === 'holder' ? HOLDER_MAX_LENGTH : NAME_MAX_LENGTH);
  return result.ok ? result.value : raw.trim();
}

/** The form field of each protocol field the server may blame. */
const FORM_FIELDS: Readonly<Record<string, CardField>> = {
  'card.number': 'number',
  'card.expMonth': 'expiry',
  'card.expYear': 'expiry',
  'card.cvv': 'cvv',
  'card.holder': 'holder',
  'customer.firstName': 'firstName',
  'customer.lastName': 'lastName',
  'customer.email': 'email',
  'customer.phone': 'phone',
};

/**
 * The form field a protocol field belongs to (`card.expYear` → `expiry`,
 * `customer.phone` → `phone`), for a refusal the server answers with.
 */
export function formFieldOf(protocolField: string | undefined): CardField | undefined {
  return protocolField && Object.hasOwn(FORM_FIELDS, protocolField)
    ? FORM_FIELDS[protocolField]
    : undefined;
}

/** The likeliest reason, by field, that the server refused a value the form found valid. */
const LIKELIEST: Partial<Record<CardField, keyof CheckoutMessages>> = {
  number: 'numberInvalid',
  expiry: 'expiryPast',
  cvv: 'cvvRequired',
  email: 'emailInvalid',
  phone: 'phoneInvalid',
};

/**
 * What to show under `field` when the server refused a value the form found valid (its
 * clock or the merchant's rules differ): the likeliest reason.
 */
export function likeliestMessage(field: CardField, t: CheckoutMessages): string {
  return t[LIKELIEST[field] ?? 'required'];
}
