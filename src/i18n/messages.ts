import { ErrorKey } from '../common/errors/error-codes';
import { Language } from './language';

type Catalogue<K extends string> = Record<K, Record<Language, string>>;

/** One message per error key, in both languages (the compiler checks completeness). */
export const ERROR_MESSAGES: Catalogue<ErrorKey> = {
  rest_no_route: {
    en: 'No route was found matching the URL and request method.',
    nl: 'Er is geen route gevonden die overeenkomt met de URL en de aanvraagmethode.',
  },
  rest_invalid_namespace: {
    en: 'The specified namespace could not be found.',
    nl: 'De opgegeven namespace is niet gevonden.',
  },
  rest_missing_callback_param: {
    en: 'Missing parameter(s): {names}',
    nl: 'Ontbrekende parameter(s): {names}',
  },
  rest_invalid_param: {
    en: 'Invalid parameter(s): {names}',
    nl: 'Ongeldige parameter(s): {names}',
  },
  rest_invalid_json: {
    en: 'Invalid JSON body passed.',
    nl: 'Ongeldige JSON in de body.',
  },
  rest_forbidden: {
    en: 'Sorry, you are not allowed to do that.',
    nl: 'Sorry, je hebt geen toestemming om dat te doen.',
  },
  rest_unauthorized: {
    en: 'You must be authenticated to do that.',
    nl: 'Je moet ingelogd zijn om dat te doen.',
  },
  'rest-event-not-found': { en: 'The event was not found.', nl: 'Het evenement is niet gevonden.' },
  'rest-venue-not-found': { en: 'The venue was not found.', nl: 'De locatie is niet gevonden.' },
  'rest-organizer-not-found': {
    en: 'The organizer was not found.',
    nl: 'De organisator is niet gevonden.',
  },
  'rest-category-not-found': {
    en: 'The event category was not found.',
    nl: 'De evenementcategorie is niet gevonden.',
  },
  'rest-tag-not-found': {
    en: 'The event tag was not found.',
    nl: 'De evenementtag is niet gevonden.',
  },
  'rest-webhook-not-found': {
    en: 'The webhook was not found.',
    nl: 'De webhook is niet gevonden.',
  },
  'rest-webhook-delivery-not-found': {
    en: 'The webhook delivery was not found.',
    nl: 'De webhookaflevering is niet gevonden.',
  },
  'rest-import-not-found': {
    en: 'The import was not found.',
    nl: 'De import is niet gevonden.',
  },
  'event-not-accessible': {
    en: 'The requested event is not accessible.',
    nl: 'Het gevraagde evenement is niet toegankelijk.',
  },
  'venue-not-accessible': {
    en: 'The requested venue is not accessible.',
    nl: 'De gevraagde locatie is niet toegankelijk.',
  },
  'organizer-not-accessible': {
    en: 'The requested organizer is not accessible.',
    nl: 'De gevraagde organisator is niet toegankelijk.',
  },
  'event-no-longer-available': {
    en: 'The requested event is no longer available.',
    nl: 'Het gevraagde evenement is niet meer beschikbaar.',
  },
  'event-password-protected': {
    en: 'The requested event is password protected.',
    nl: 'Het gevraagde evenement is met een wachtwoord beveiligd.',
  },
  'event-archive-page-not-found': {
    en: 'The requested event archive page does not exist.',
    nl: 'De gevraagde pagina van het evenementenarchief bestaat niet.',
  },
  'venue-archive-page-not-found': {
    en: 'The requested venue archive page does not exist.',
    nl: 'De gevraagde pagina van het locatiearchief bestaat niet.',
  },
  'organizer-archive-page-not-found': {
    en: 'The requested organizer archive page does not exist.',
    nl: 'De gevraagde pagina van het organisatorarchief bestaat niet.',
  },
  'event-is-in-trash': {
    en: 'The event is already in the trash.',
    nl: 'Het evenement staat al in de prullenbak.',
  },
  'venue-is-in-trash': {
    en: 'The venue is already in the trash.',
    nl: 'De locatie staat al in de prullenbak.',
  },
  'organizer-is-in-trash': {
    en: 'The organizer is already in the trash.',
    nl: 'De organisator staat al in de prullenbak.',
  },
  term_exists: {
    en: 'A term with the name provided already exists with this parent.',
    nl: 'Er bestaat al een term met deze naam onder dezelfde bovenliggende term.',
  },
  rest_external_id_taken: {
    en: 'Another record of this kind already has this external_id; send another key, or upsert by the key (PUT …/by-external-id/<source>/<id>).',
    nl: 'Een ander record van deze soort heeft deze external_id al; stuur een andere sleutel, of werk bij via de sleutel (PUT …/by-external-id/<source>/<id>).',
  },
  rest_precondition_failed: {
    en: 'The record has changed since the version in If-Match; read it again and retry.',
    nl: 'Het record is gewijzigd sinds de versie in If-Match; lees het opnieuw en probeer het nog eens.',
  },
  rest_precondition_required: {
    en: 'This write needs an If-Match header with the ETag of the record.',
    nl: 'Deze wijziging vereist een If-Match-header met de ETag van het record.',
  },
  rest_import_source_taken: {
    en: 'Another URL import already writes the source "{source}"; choose another source or delete that import.',
    nl: 'Een andere URL-import schrijft al de bron "{source}"; kies een andere bron of verwijder die import.',
  },
  rest_feed_too_large: {
    en: 'This iCalendar feed would hold {events} events, more than the limit of {limit}; narrow it with a shorter window (start_date, end_date), categories or venue.',
    nl: 'Deze iCalendar-feed zou {events} evenementen bevatten, meer dan de limiet van {limit}; beperk hem met een korter venster (start_date, end_date), categories of venue.',
  },
  rest_sync_cursor_expired: {
    en: 'The changes cursor is older than the retention of the feed; sync again without since.',
    nl: 'De cursor van de wijzigingen is ouder dan de bewaartermijn van de feed; synchroniseer opnieuw zonder since.',
  },
  rest_idempotency_key_reused: {
    en: 'This Idempotency-Key was already used for a different request (another body, method or path); use a new key.',
    nl: 'Deze Idempotency-Key is al gebruikt voor een ander verzoek (andere body, methode of pad); gebruik een nieuwe sleutel.',
  },
  rest_idempotency_key_in_use: {
    en: 'A request with this Idempotency-Key is still running; try again shortly.',
    nl: 'Een verzoek met deze Idempotency-Key loopt nog; probeer het zo opnieuw.',
  },
  rest_batch_rolled_back: {
    en: 'Rolled back: operation {failed} of the atomic batch failed, so none was applied.',
    nl: 'Teruggedraaid: bewerking {failed} van de atomaire batch mislukte, dus geen enkele is uitgevoerd.',
  },
  rest_batch_not_executed: {
    en: 'Not run: operation {failed} of the atomic batch failed before it.',
    nl: 'Niet uitgevoerd: bewerking {failed} van de atomaire batch mislukte eerder.',
  },
  rest_payload_too_large: {
    en: 'The request body is larger than the limit of {limit}.',
    nl: 'De body van het verzoek is groter dan de limiet van {limit}.',
  },
  rest_unsupported_media_type: {
    en: 'Send the body as application/json or application/x-www-form-urlencoded.',
    nl: 'Stuur de body als application/json of application/x-www-form-urlencoded.',
  },
  rest_too_many_requests: {
    en: 'Too many requests; try again later.',
    nl: 'Te veel verzoeken; probeer het later opnieuw.',
  },
  rest_service_unavailable: {
    en: 'The service is temporarily unavailable; try again later.',
    nl: 'De dienst is tijdelijk niet beschikbaar; probeer het later opnieuw.',
  },
  rest_request_timeout: {
    en: 'The request took too long; try again later.',
    nl: 'Het verzoek duurde te lang; probeer het later opnieuw.',
  },
  rest_search_busy: {
    en: 'Too many searches are running; try again in a moment.',
    nl: 'Er lopen te veel zoekopdrachten; probeer het zo opnieuw.',
  },
  rest_internal_error: {
    en: 'An internal error occurred.',
    nl: 'Er is een interne fout opgetreden.',
  },
};

/**
 * Why a parameter was rejected, keyed by class-validator constraint name or
 * by the reason names our own checks use. `{name}` is the parameter.
 */
export const REASON_MESSAGES = {
  invalid: { en: '{name} is invalid.', nl: '{name} is ongeldig.' },
  isNotEmpty: { en: '{name} must not be empty.', nl: '{name} mag niet leeg zijn.' },
  isString: { en: '{name} is not of type string.', nl: '{name} is geen tekst.' },
  isInt: { en: '{name} is not of type integer.', nl: '{name} is geen geheel getal.' },
  isNumber: { en: '{name} is not of type number.', nl: '{name} is geen getal.' },
  isBoolean: { en: '{name} is not of type boolean.', nl: '{name} is geen booleaanse waarde.' },
  isArray: { en: '{name} is not of type array.', nl: '{name} is geen lijst.' },
  isObject: { en: '{name} is not of type object.', nl: '{name} is geen object.' },
  isIn: {
    en: '{name} is not one of the allowed values.',
    nl: '{name} is geen van de toegestane waarden.',
  },
  min: { en: '{name} is out of range.', nl: '{name} valt buiten het bereik.' },
  max: { en: '{name} is out of range.', nl: '{name} valt buiten het bereik.' },
  isPositive: {
    en: '{name} must be a positive number.',
    nl: '{name} moet een positief getal zijn.',
  },
  maxLength: { en: '{name} is too long.', nl: '{name} is te lang.' },
  isWellFormedText: {
    en: '{name} is not valid Unicode (a lone surrogate).',
    nl: '{name} is geen geldige Unicode (een los surrogaat).',
  },
  arrayMaxSize: { en: '{name} has too many items.', nl: '{name} heeft te veel elementen.' },
  arrayMinSize: { en: '{name} has too few items.', nl: '{name} heeft te weinig elementen.' },
  isBatchPath: {
    en: '{name} must be a path under the namespace in events, venues, organizers, categories or tags, such as /events/7 (no URL, "..", fragment or unencoded character).',
    nl: '{name} moet een pad onder de namespace zijn in events, venues, organizers, categories of tags, zoals /events/7 (geen URL, "..", fragment of niet-gecodeerd teken).',
  },
  isOperationHeader: {
    en: '{name} is not a header an operation may carry (If-Match, Idempotency-Key, each once).',
    nl: '{name} is geen header die een bewerking mag meegeven (If-Match, Idempotency-Key, elk één keer).',
  },
  notInAtomicBatch: {
    en: '{name} cannot be given per operation in an atomic batch; send one Idempotency-Key with the batch.',
    nl: '{name} kan niet per bewerking worden meegegeven in een atomaire batch; stuur één Idempotency-Key met de batch mee.',
  },
  percentEncoding: {
    en: '{name} has a part that is not valid percent-encoded UTF-8.',
    nl: '{name} heeft een deel dat geen geldige procentcodering van UTF-8 is.',
  },
  eachIsString: {
    en: '{name} must be a list of strings.',
    nl: '{name} moet een lijst van teksten zijn.',
  },
  eachMaxLength: {
    en: '{name} has an item that is too long.',
    nl: '{name} heeft een element dat te lang is.',
  },
  eachIsIn: {
    en: '{name} has an item that is not one of the allowed values.',
    nl: '{name} heeft een element dat geen van de toegestane waarden is.',
  },
  isEmail: {
    en: '{name} is not a valid e-mail address.',
    nl: '{name} is geen geldig e-mailadres.',
  },
  isIdempotencyKey: {
    en: '{name} must be 1 to 255 visible ASCII characters.',
    nl: '{name} moet uit 1 tot 255 zichtbare ASCII-tekens bestaan.',
  },
  isUrl: { en: '{name} is not a valid URL.', nl: '{name} is geen geldige URL.' },
  isDateInput: { en: '{name} is not a valid date.', nl: '{name} is geen geldige datum.' },
  isTimezone: { en: '{name} is not a valid time zone.', nl: '{name} is geen geldige tijdzone.' },
  isIdList: {
    en: '{name} must be a list of positive IDs.',
    nl: '{name} moet een lijst van positieve ID’s zijn.',
  },
  isRefresh: {
    en: '{name} must be a whole number followed by m, h or d (such as 30m, 1h or 1d), from 15m to 30d.',
    nl: '{name} moet een geheel getal gevolgd door m, h of d zijn (zoals 30m, 1h of 1d), van 15m tot 30d.',
  },
  isExternalSource: {
    en: '{name} must be 1 to 64 characters of a-z, 0-9, ".", "_" and "-".',
    nl: '{name} moet uit 1 tot 64 tekens a-z, 0-9, ".", "_" en "-" bestaan.',
  },
  isExternalId: {
    en: '{name} must be 1 to 255 characters without control characters, not ending in a space.',
    nl: '{name} moet uit 1 tot 255 tekens zonder stuurtekens bestaan en mag niet op een spatie eindigen.',
  },
  keyMismatch: {
    en: '{name} must be left out or equal the key in the path.',
    nl: '{name} moet weggelaten worden of gelijk zijn aan de sleutel in het pad.',
  },
  isImage: {
    en: '{name} must be an http(s) URL or a positive media ID.',
    nl: '{name} moet een http(s)-URL of een positief media-ID zijn.',
  },
  notFound: {
    en: '{name} refers to a record that does not exist.',
    nl: '{name} verwijst naar een record dat niet bestaat.',
  },
  endBeforeStart: {
    en: 'end_date must not be before start_date.',
    nl: 'end_date mag niet vóór start_date liggen.',
  },
  bothOrNeither: {
    en: '{name} must be sent together with {other}.',
    nl: '{name} moet samen met {other} worden verstuurd.',
  },
  statusNotAllowed: {
    en: '{name}: you may only ask for published items.',
    nl: '{name}: je mag alleen naar gepubliceerde items vragen.',
  },
  parentCycle: {
    en: '{name} would make a category its own ancestor.',
    nl: '{name} zou een categorie haar eigen voorouder maken.',
  },
  emptyNotAllowed: {
    en: '{name} must not be an empty string.',
    nl: '{name} mag geen lege tekst zijn.',
  },
  isCost: {
    en: '{name} must be an amount such as "€10", "10 - 20" or "5,50", or a list of them.',
    nl: '{name} moet een bedrag zijn zoals "€10", "10 - 20" of "5,50", of een lijst daarvan.',
  },
  httpsRequired: {
    en: '{name} must be an https:// URL.',
    nl: '{name} moet een https://-URL zijn.',
  },
  privateTarget: {
    en: '{name} must not point at a loopback, private, link-local or other internal address.',
    nl: '{name} mag niet naar een loopback-, privé-, link-local- of ander intern adres wijzen.',
  },
  feedWindow: {
    en: '{name}: an iCalendar feed covers at most 10 years; send start_date and end_date at most 10 years apart.',
    nl: '{name}: een iCalendar-feed beslaat hoogstens 10 jaar; stuur start_date en end_date hoogstens 10 jaar uit elkaar.',
  },
  notOurCursor: {
    en: '{name} is not a cursor of this changes feed.',
    nl: '{name} is geen cursor van deze wijzigingenfeed.',
  },
  ownParent: {
    en: '{name} cannot be the event itself.',
    nl: '{name} kan niet het evenement zelf zijn.',
  },
  recurrenceLine: {
    en: '{name} line {line} ("{part}") is not an RRULE, RDATE or EXDATE line.',
    nl: '{name} regel {line} ("{part}") is geen RRULE-, RDATE- of EXDATE-regel.',
  },
  recurrencePart: {
    en: '{name} line {line}: "{part}" is not valid.',
    nl: '{name} regel {line}: "{part}" is ongeldig.',
  },
  recurrenceFiner: {
    en: '{name} line {line}: "{part}" is not supported: every occurrence has the time of day of the event.',
    nl: '{name} regel {line}: "{part}" wordt niet ondersteund: elke herhaling heeft het tijdstip van het evenement.',
  },
  recurrenceNoFreq: {
    en: '{name} line {line}: the RRULE has no FREQ.',
    nl: '{name} regel {line}: de RRULE heeft geen FREQ.',
  },
  recurrenceCountUntil: {
    en: '{name} line {line}: COUNT and UNTIL cannot be used together.',
    nl: '{name} regel {line}: COUNT en UNTIL kunnen niet samen worden gebruikt.',
  },
  recurrenceSecondRule: {
    en: '{name} line {line}: only one RRULE is allowed.',
    nl: '{name} regel {line}: er is maar één RRULE toegestaan.',
  },
  recurrenceNever: {
    en: '{name} line {line}: the rule never gives a date ("{part}").',
    nl: '{name} regel {line}: de regel levert nooit een datum op ("{part}").',
  },
  recurrenceDate: {
    en: '{name} line {line}: "{part}" is not a valid date or date-time.',
    nl: '{name} regel {line}: "{part}" is geen geldige datum of datum-tijd.',
  },
  recurrenceOnOccurrence: {
    en: '{name}: an occurrence of a series cannot have a rule of its own.',
    nl: '{name}: een herhaling van een reeks kan geen eigen regel hebben.',
  },
  recurrenceTooLong: {
    en: '{name}: the rule needs more than {max} steps of its FREQ to reach the horizon; start it later or use a coarser FREQ.',
    nl: '{name}: de regel heeft meer dan {max} stappen van zijn FREQ nodig tot de horizon; laat hem later beginnen of gebruik een grovere FREQ.',
  },
  recurrenceYears: {
    en: '{name} line {line}: "{part}" falls outside the years 1000 to 9999 (in the event\'s time zone or in UTC).',
    nl: '{name} regel {line}: "{part}" valt buiten de jaren 1000 tot 9999 (in de tijdzone van het evenement of in UTC).',
  },
  recurrenceTooMany: {
    en: '{name} gives more than {max} occurrences up to the horizon.',
    nl: '{name} levert meer dan {max} herhalingen op tot de horizon.',
  },
} satisfies Record<string, Record<Language, string>>;

/** Generated text that ends up in records. */
export const TEXT = {
  free: { en: 'Free', nl: 'Gratis' },
  calendarName: { en: 'Events', nl: 'Evenementen' },
} satisfies Record<string, Record<Language, string>>;

/** Replaces `{key}` placeholders with the given arguments. */
export function format(template: string, args: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) =>
    key in args ? String(args[key]) : whole,
  );
}

export function reasonMessage(
  reason: string,
  language: Language,
  args: Record<string, string | number>,
): string {
  const entry =
    (REASON_MESSAGES as Record<string, Record<Language, string>>)[reason] ??
    REASON_MESSAGES.invalid;
  return format(entry[language], args);
}
