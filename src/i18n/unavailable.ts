/**
 * What a server-rendered form says, in each shipped language, when its module cannot be had
 * (refused by its integrity hash, missing, offline): it cannot pay. `renderCardForm`
 * (ssr.ts) writes the text of the form's language into the page as `data-pg-unavailable`,
 * and the after-paint loader (hydrate-after-paint.ts, whose English fallback is `en` here)
 * shows it in the form's status line. The form itself never shows it, so it is kept out of
 * the form's catalogues (locales/): the CDN file every page downloads does not carry it.
 */
import {tagsOf} from './catalogue.js';

/** The text in each shipped language. */
export const UNAVAILABLE_TEXTS: Readonly<Record<string, string>> = {
  en: 'Card payment is not available right now. Nothing was charged. Reload the page or try again later.',
  ar: 'الدفع بالبطاقة غير متاح الآن. لم يُخصم أي مبلغ. أعد تحميل الصفحة أو حاول لاحقًا.',
  cs: 'Platba kartou teď není k dispozici. Nic nebylo strženo. Načtěte stránku znovu nebo to zkuste později.',
  de: 'Die Kartenzahlung ist gerade nicht verfügbar. Es wurde nichts abgebucht. Laden Sie die Seite neu oder versuchen Sie es später erneut.',
  es: 'El pago con tarjeta no está disponible en este momento. No se ha cobrado nada. Recarga la página o inténtalo más tarde.',
  fr: 'Le paiement par carte est indisponible pour le moment. Rien n’a été débité. Rechargez la page ou réessayez plus tard.',
  it: 'Il pagamento con carta non è disponibile al momento. Non è stato addebitato nulla. Ricarica la pagina o riprova più tardi.',
  pl: 'Płatność kartą jest teraz niedostępna. Nic nie pobrano. Odśwież stronę lub spróbuj później.',
  pt: 'O pagamento com cartão não está disponível no momento. Nada foi cobrado. Recarregue a página ou tente de novo mais tarde.',
  ro: 'Plata cu cardul nu este disponibilă acum. Nu s-a debitat nimic. Reîncărcați pagina sau încercați mai târziu.',
  tr: 'Kartla ödeme şu anda kullanılamıyor. Hiçbir ücret alınmadı. Sayfayı yenileyin veya daha sonra tekrar deneyin.',
  uk: 'Оплата карткою зараз недоступна. Кошти не списано. Оновіть сторінку або спробуйте пізніше.',
};

/** The text for `lang` (a BCP 47 tag: its most specific shipped language), else English. */
export function unavailableText(lang: string): string {
  for (const tag of tagsOf(lang)) {
    const text = UNAVAILABLE_TEXTS[tag];
    if (text !== undefined) return text;
  }
  return UNAVAILABLE_TEXTS['en']!;
}
