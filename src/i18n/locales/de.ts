/**
 * The checkout's texts in German: every key of `CheckoutMessages`, in the order of
 * `en.ts`. Loaded only when a page asks for this language (`catalogue.ts`).
 */
import type {CheckoutMessages} from '../messages.js';

export const de: CheckoutMessages = {
  cardNumber: 'Kartennummer',
  expiry: 'Gültig bis',
  expiryHint: 'MM / JJ',
  cvv: 'Sicherheitscode',
  holder: 'Name des Karteninhabers',
  firstName: 'Vorname',
  lastName: 'Nachname',
  email: 'E-Mail',
  phone: 'Telefon',
  pay: 'Bezahlen',
  payAmount: '{amount} bezahlen',
  paying: 'Wird verarbeitet…',
  retry: 'Erneut versuchen',
  paid: 'Bezahlt',
  numberRequired: 'Kartennummer eingeben.',
  numberInvalid: 'Diese Kartennummer ist ungültig.',
  expiryRequired: 'Datum eingeben.',
  expiryInvalid: 'Format MM / JJ.',
  expiryPast: 'Karte abgelaufen.',
  expiryMonth: 'Monat: 01–12.',
  brandNotAccepted: '{brand} wird nicht akzeptiert.',
  cardNotAccepted: 'Diese Karte wird nicht akzeptiert.',
  cvvRequired: 'Code eingeben.',
  cvvInvalid: '{n} Ziffern eingeben.',
  required: 'Pflichtfeld.',
  tooLong: 'Max. {n} Zeichen.',
  emailInvalid: 'Gültige E-Mail-Adresse eingeben.',
  emailLatin: 'E-Mail-Adresse ohne Umlaute und Sonderzeichen.',
  phoneInvalid: 'Telefon: nur Ziffern, + am Anfang.',
  phoneTooShort: 'Diese Telefonnummer ist zu kurz.',
  phoneTooLong: 'Diese Telefonnummer ist zu lang.',
  fixFields: '{n, plural, one {Bitte # Feld korrigieren.} other {Bitte # Felder korrigieren.}}',
  success: 'Zahlung erfolgreich.',
  failure: 'Zahlung abgelehnt.',
  networkError:
    'Der Server ist nicht erreichbar. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.',
  serverError: 'Etwas ist schiefgelaufen. Bitte versuchen Sie es erneut.',
  threeDSRedirecting: 'Weiterleitung zu Ihrer Bank zur Bestätigung…',
  threeDSTitle: 'Bestätigen Sie die Zahlung bei Ihrer Bank',
  cancel: 'Abbrechen',
  threeDSCancelled:
    'Zahlung abgebrochen. Sie können erneut bezahlen, mit dieser oder einer anderen Karte.',
  checking: 'Zahlungsstatus wird geprüft…',
  timeout: 'Die Zahlung konnte noch nicht bestätigt werden. Prüfen Sie es gleich noch einmal.',
  checkAgain: 'Erneut prüfen',
  missingOrder: 'Keine Zahlung zum Prüfen gefunden.',
  declinedFunds: 'Zahlung abgelehnt: nicht genügend Guthaben auf der Karte.',
  declinedCvv: 'Zahlung abgelehnt: falscher Sicherheitscode.',
  declinedExpired: 'Zahlung abgelehnt: Die Karte ist abgelaufen.',
  declinedIssuer:
    'Ihre Bank hat die Zahlung abgelehnt. Verwenden Sie eine andere Karte oder rufen Sie Ihre Bank an.',
  declinedThreeDS:
    'Ihre Bank hat die Zahlung nicht bestätigt. Versuchen Sie es erneut oder verwenden Sie eine andere Karte.',
  paymentExpired: 'Die Zahlung wurde nicht rechtzeitig abgeschlossen. Sie können erneut bezahlen.',
  notCreated: 'Es wurde nichts abgebucht. Prüfen Sie die Kartendaten und versuchen Sie es erneut.',
  notConfirmed:
    'Wir konnten die Zahlung nicht bestätigen. Versuchen Sie es erneut: Es wird nicht doppelt abgebucht.',
  gatewayUnavailable:
    'Der Zahlungsdienst ist nicht erreichbar. Es wurde nichts abgebucht; versuchen Sie es erneut.',
  rateLimited: 'Zu viele Versuche. Versuchen Sie es in {n} s erneut.',
  checkDetails: 'Prüfen Sie die Kartendaten und versuchen Sie es erneut.',
  stillProcessing: 'Ihre Bank bearbeitet die Zahlung noch. Prüfen Sie gleich noch einmal.',
};
