/**
 * The checkout's texts in French: every key of `CheckoutMessages`, in the order of
 * `en.ts`. Loaded only when a page asks for this language (`catalogue.ts`).
 */
import type {CheckoutMessages} from '../messages.js';

export const fr: CheckoutMessages = {
  cardNumber: 'Numéro de carte',
  expiry: 'Expiration',
  expiryHint: 'MM / AA',
  cvv: 'Cryptogramme',
  holder: 'Titulaire de la carte',
  firstName: 'Prénom',
  lastName: 'Nom',
  email: 'E-mail',
  phone: 'Téléphone',
  pay: 'Payer',
  payAmount: 'Payer {amount}',
  paying: 'Traitement…',
  retry: 'Réessayer',
  paid: 'Payé',
  numberRequired: 'Saisissez le numéro de carte.',
  numberInvalid: "Ce numéro de carte n'est pas valide.",
  expiryRequired: 'Saisissez la date.',
  expiryInvalid: 'Format MM / AA.',
  expiryPast: 'Carte expirée.',
  expiryMonth: 'Mois : 01–12.',
  brandNotAccepted: '{brand} n’est pas acceptée.',
  cardNotAccepted: 'Cette carte n’est pas acceptée.',
  cvvRequired: 'Saisissez le code.',
  cvvInvalid: 'Saisissez {n} chiffres.',
  required: 'Obligatoire.',
  tooLong: '{n} caractères max.',
  emailInvalid: 'Saisissez une adresse e-mail valide.',
  emailLatin: 'Adresse e-mail sans accents ni caractères spéciaux.',
  phoneInvalid: 'Téléphone : chiffres uniquement, + au début.',
  phoneTooShort: 'Numéro trop court.',
  phoneTooLong: 'Numéro trop long.',
  fixFields:
    '{n, plural, one {Veuillez corriger # champ.} many {Veuillez corriger # de champs.} other {Veuillez corriger # champs.}}',
  success: 'Paiement réussi.',
  failure: 'Paiement refusé.',
  networkError: 'Impossible de joindre le serveur. Vérifiez votre connexion et réessayez.',
  serverError: "Une erreur s'est produite. Veuillez réessayer.",
  threeDSRedirecting: 'Redirection vers votre banque pour confirmation…',
  threeDSTitle: 'Confirmez le paiement auprès de votre banque',
  cancel: 'Annuler',
  threeDSCancelled: 'Paiement annulé. Vous pouvez payer à nouveau, avec cette carte ou une autre.',
  checking: 'Vérification du statut du paiement…',
  timeout: "Nous n'avons pas encore pu confirmer le paiement. Vérifiez à nouveau dans un instant.",
  checkAgain: 'Vérifier à nouveau',
  missingOrder: 'Aucun paiement à vérifier.',
  declinedFunds: 'Paiement refusé : solde insuffisant sur la carte.',
  declinedCvv: 'Paiement refusé : code de sécurité incorrect.',
  declinedExpired: 'Paiement refusé : la carte a expiré.',
  declinedIssuer:
    'Votre banque a refusé le paiement. Utilisez une autre carte ou contactez votre banque.',
  declinedThreeDS:
    'Votre banque n’a pas confirmé le paiement. Réessayez ou utilisez une autre carte.',
  paymentExpired: 'Le paiement n’a pas été finalisé à temps. Vous pouvez payer à nouveau.',
  notCreated: 'Aucun montant n’a été débité. Vérifiez les données de la carte et réessayez.',
  notConfirmed:
    'Nous n’avons pas pu confirmer le paiement. Réessayez : vous ne serez pas débité deux fois.',
  gatewayUnavailable:
    'Le service de paiement est indisponible. Aucun montant n’a été débité ; réessayez.',
  rateLimited: 'Trop de tentatives. Réessayez dans {n} s.',
  checkDetails: 'Vérifiez les données de la carte et réessayez.',
  stillProcessing: 'Votre banque traite encore le paiement. Vérifiez à nouveau dans un instant.',
};
