/**
 * Text that PostgreSQL stores, in a text column and in jsonb alike. A text column refuses NUL
 * characters; jsonb refuses the JSON escape of NUL (`\u0000`, "unsupported Unicode escape
 * sequence") and of an unpaired UTF-16 surrogate (`\ud800` alone, "invalid input syntax for type
 * json"), which is how JSON.stringify writes those characters. Texts from outside services and
 * from the chain may carry some (a node's rendering of a custom error's zero arguments, a
 * generator's error message, a collector's purchase data); an insert or update with one fails,
 * and the row it should have changed stays as it was (a transaction left `queued`, a job left
 * open, a purchase not recorded).
 */

/** The text without NUL characters, and with each unpaired surrogate replaced by U+FFFD (as a UTF-8 encoder writes it anyway). */
export const storableText = (text: string) => text.replace(/\u0000/g, '').toWellFormed();

/** True when PostgreSQL stores the text as it is: no NUL character, no unpaired surrogate. */
export const isStorableText = (text: string) => !text.includes('\u0000') && text.isWellFormed();
