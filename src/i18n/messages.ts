/**
 * Built-in texts of the checkout elements, in English and Ukrainian (the gateway's home
 * market), and the rule that picks one: the element's own `lang`, else the closest
 * ancestor's, else the document's, else English. Every message can be overridden per
 * element through its `messages` property.
 */
import type {ReactiveController, ReactiveControllerHost} from 'lit';

export interface CheckoutMessages {
  cardNumber: string;
  expiry: string;
  expiryHint: string;
  cvv: string;
  holder: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  pay: string;
  paying: string;
  retry: string;
  paid: string;
  // Field errors sit under their input, two fields to a row for expiry and CVV and for the
  // first and last name: keep them short enough for one line in a 150 px column (a
  // full-width field's in a 320 px form), or the fields below would move.
  numberRequired: string;
  numberInvalid: string;
  expiryRequired: string;
  expiryInvalid: string;
  /** The expiry month is over. */
  expiryPast: string;
  /** The expiry month is not 01–12 (`13 / 30`). */
  expiryMonth: string;
  /** `{brand}` (Mastercard, …) is not among the merchant's `accepted-brands`. */
  brandNotAccepted: string;
  /** A card of a brand the form cannot tell, when the merchant accepts only some brands. */
  cardNotAccepted: string;
  /** The pay button when the order's total is known: `{amount}` is `₴1,250.00`. */
  payAmount: string;
  cvvRequired: string;
  /** `{n}` is replaced by the number of digits. */
  cvvInvalid: string;
  required: string;
  /** `{n}` is replaced by the most characters the field takes. */
  tooLong: string;
  /** Not an email address (`ada@example.c`). */
  emailInvalid: string;
  /** An email address with letters outside ASCII (`оля@приклад.укр`): the gateway takes none. */
  emailLatin: string;
  /** A phone number with something other than digits, separators and a leading `+`. */
  phoneInvalid: string;
  phoneTooShort: string;
  phoneTooLong: string;
  /** `{n}` is replaced by the number of fields to correct. */
  fixFields: string;
  success: string;
  /** Prefix before the gateway's own message. */
  failure: string;
  networkError: string;
  serverError: string;
  threeDSRedirecting: string;
  threeDSTitle: string;
  cancel: string;
  /** After the customer cancelled the 3-D Secure challenge. */
  threeDSCancelled: string;
  checking: string;
  timeout: string;
  checkAgain: string;
  missingOrder: string;
}

export const en: CheckoutMessages = {
  cardNumber: 'Card number',
  expiry: 'Expiry date',
  expiryHint: 'MM / YY',
  cvv: 'Security code',
  holder: 'Name on card',
  firstName: 'First name',
  lastName: 'Last name',
  email: 'Email',
  phone: 'Phone',
  pay: 'Pay',
  paying: 'Processing…',
  retry: 'Try again',
  paid: 'Paid',
  numberRequired: 'Enter the card number.',
  numberInvalid: 'This card number is not valid.',
  expiryRequired: 'Enter the date.',
  expiryInvalid: 'Use MM / YY.',
  expiryPast: 'Card has expired.',
  expiryMonth: 'Month: 01–12.',
  brandNotAccepted: '{brand} is not accepted.',
  cardNotAccepted: 'This card is not accepted.',
  payAmount: 'Pay {amount}',
  cvvRequired: 'Enter the code.',
  cvvInvalid: 'Enter {n} digits.',
  required: 'Required.',
  tooLong: 'Max {n} characters.',
  emailInvalid: 'Enter a valid email address.',
  emailLatin: 'Use Latin letters in the email address.',
  phoneInvalid: 'Phone: digits only, + at the start.',
  phoneTooShort: 'This phone number is too short.',
  phoneTooLong: 'This phone number is too long.',
  fixFields: 'Please correct {n} field(s).',
  success: 'Payment successful.',
  failure: 'Payment declined.',
  networkError: 'Could not reach the server. Check your connection and try again.',
  serverError: 'Something went wrong. Please try again.',
  threeDSRedirecting: 'Redirecting to your bank for confirmation…',
  threeDSTitle: 'Confirm the payment with your bank',
  cancel: 'Cancel',
  threeDSCancelled: 'Payment cancelled. You can pay again, with this card or another.',
  checking: 'Checking the payment status…',
  timeout: 'We could not confirm the payment yet. Check again in a moment.',
  checkAgain: 'Check again',
  missingOrder: 'No payment to check was found.',
};

export const uk: CheckoutMessages = {
  cardNumber: 'Номер картки',
  expiry: 'Термін дії',
  expiryHint: 'ММ / РР',
  cvv: 'Код безпеки',
  holder: "Ім'я на картці",
  firstName: "Ім'я",
  lastName: 'Прізвище',
  email: 'Електронна пошта',
  phone: 'Телефон',
  pay: 'Сплатити',
  paying: 'Обробка…',
  retry: 'Спробувати ще раз',
  paid: 'Сплачено',
  numberRequired: 'Введіть номер картки.',
  numberInvalid: 'Цей номер картки недійсний.',
  expiryRequired: 'Введіть дату.',
  expiryInvalid: 'Формат ММ / РР.',
  expiryPast: 'Термін минув.',
  expiryMonth: 'Місяць: 01–12.',
  brandNotAccepted: '{brand} не приймається.',
  cardNotAccepted: 'Ця картка не приймається.',
  payAmount: 'Сплатити {amount}',
  cvvRequired: 'Введіть код.',
  cvvInvalid: 'Введіть {n} цифри.',
  required: "Обов'язкове поле.",
  tooLong: 'До {n} символів.',
  emailInvalid: 'Введіть дійсну адресу електронної пошти.',
  emailLatin: 'Адресу пошти пишіть латиницею.',
  phoneInvalid: 'Телефон: лише цифри, + на початку.',
  phoneTooShort: 'Номер телефону закороткий.',
  phoneTooLong: 'Номер телефону задовгий.',
  fixFields: 'Виправте поля: {n}.',
  success: 'Оплата пройшла успішно.',
  failure: 'Оплату відхилено.',
  networkError: "Не вдалося зв'язатися із сервером. Перевірте з'єднання і спробуйте ще раз.",
  serverError: 'Щось пішло не так. Спробуйте ще раз.',
  threeDSRedirecting: 'Переходимо до вашого банку для підтвердження…',
  threeDSTitle: 'Підтвердьте оплату у своєму банку',
  cancel: 'Скасувати',
  threeDSCancelled: 'Оплату скасовано. Можна сплатити ще раз цією або іншою карткою.',
  checking: 'Перевіряємо статус оплати…',
  timeout: 'Поки не вдалося підтвердити оплату. Перевірте ще раз за хвилину.',
  checkAgain: 'Перевірити ще раз',
  missingOrder: 'Не знайдено оплати для перевірки.',
};

/** Built-in message tables by primary language subtag. */
export const BUILT_IN_MESSAGES: Readonly<Record<string, CheckoutMessages>> = {en, uk};

/** The language in effect for `el`: its own or an ancestor's `lang`, else the document's. */
export function languageOf(el: Element): string {
  const owner = el.closest('[lang]')?.getAttribute('lang');
  return owner || document.documentElement.lang || navigator.language || 'en';
}

/** The built-in table for a BCP 47 tag (`uk-UA` → Ukrainian), falling back to English. */
export function messagesFor(lang: string): CheckoutMessages {
  const primary = lang.toLowerCase().split('-')[0] ?? '';
  return BUILT_IN_MESSAGES[primary] ?? en;
}

/** Replaces `{n}` in a message. */
export function fill(message: string, n: number): string {
  return message.replace('{n}', String(n));
}

const hosts = new Set<ReactiveControllerHost>();
let observer: MutationObserver | undefined;

/**
 * Re-renders its host when a `lang` attribute changes anywhere in the document (on the
 * host, an ancestor or `<html>`), and merges the host's overrides into the built-ins.
 */
export class LocaleController implements ReactiveController {
  private readonly host: ReactiveControllerHost & HTMLElement;

  constructor(host: ReactiveControllerHost & HTMLElement) {
    this.host = host;
    host.addController(this);
  }

  /** The built-in messages for the current language, with `overrides` applied. */
  messages(overrides?: Partial<CheckoutMessages>): CheckoutMessages {
    const base = messagesFor(languageOf(this.host));
    return overrides ? {...base, ...overrides} : base;
  }

  hostConnected(): void {
    hosts.add(this.host);
    if (!observer) {
      observer = new MutationObserver(() => hosts.forEach((h) => h.requestUpdate()));
      observer.observe(document.documentElement, {
        attributes: true,
        attributeFilter: ['lang'],
        subtree: true,
      });
    }
  }

  hostDisconnected(): void {
    hosts.delete(this.host);
    if (hosts.size === 0) {
      observer?.disconnect();
      observer = undefined;
    }
  }
}
