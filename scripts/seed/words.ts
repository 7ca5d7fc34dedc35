/*
 * Word lists for the generated texts, as [Dutch, English] pairs so both
 * translations of a record say the same thing.
 */

export type Pair = readonly [nl: string, en: string];

/** Kinds of events; `het` marks Dutch neuter nouns (an undeclined adjective: "Groot concert"). */
export const EVENT_KINDS: ReadonlyArray<{ nl: string; en: string; het?: boolean }> = [
  { nl: 'concert', en: 'concert', het: true },
  { nl: 'jazzavond', en: 'jazz night' },
  { nl: 'workshop', en: 'workshop' },
  { nl: 'lezing', en: 'lecture' },
  { nl: 'rondleiding', en: 'guided tour' },
  { nl: 'markt', en: 'market' },
  { nl: 'festival', en: 'festival', het: true },
  { nl: 'voorstelling', en: 'performance' },
  { nl: 'tentoonstelling', en: 'exhibition' },
  { nl: 'filmavond', en: 'film night' },
  { nl: 'pubquiz', en: 'pub quiz' },
  { nl: 'dansavond', en: 'dance night' },
  { nl: 'wijnproeverij', en: 'wine tasting' },
  { nl: 'wandeling', en: 'walk' },
  { nl: 'fietstocht', en: 'bike ride' },
  { nl: 'kinderochtend', en: "children's morning" },
  { nl: 'open dag', en: 'open day' },
  { nl: 'masterclass', en: 'masterclass' },
  { nl: 'symposium', en: 'symposium', het: true },
  { nl: 'boekpresentatie', en: 'book launch' },
  { nl: 'cursus', en: 'course' },
  { nl: 'yogales', en: 'yoga class' },
  { nl: 'kookworkshop', en: 'cooking workshop' },
  { nl: 'voorleesuurtje', en: 'story hour', het: true },
  { nl: 'open podium', en: 'open mic', het: true },
  { nl: 'koorconcert', en: 'choir concert', het: true },
  { nl: 'orgelconcert', en: 'organ concert', het: true },
  { nl: 'debat', en: 'debate', het: true },
  { nl: 'netwerkborrel', en: 'networking drinks' },
  { nl: 'vlooienmarkt', en: 'flea market' },
  { nl: 'lichtjesavond', en: 'festival of lights' },
  { nl: 'sterrenkijkavond', en: 'stargazing night' },
  { nl: 'hardloopwedstrijd', en: 'running race' },
  { nl: 'schaaktoernooi', en: 'chess tournament', het: true },
  { nl: 'cabaretvoorstelling', en: 'comedy show' },
  { nl: 'dansvoorstelling', en: 'dance performance' },
  { nl: 'pianorecital', en: 'piano recital', het: true },
  { nl: 'familiedag', en: 'family day' },
  { nl: 'braderie', en: 'street fair' },
  { nl: 'excursie', en: 'excursion' },
];

/** Adjectives: [Dutch declined (de-word), Dutch undeclined (het-word), English]. */
export const ADJECTIVES: ReadonlyArray<readonly [string, string, string]> = [
  ['grote', 'groot', 'big'],
  ['kleine', 'klein', 'small'],
  ['zomerse', 'zomers', 'summer'],
  ['winterse', 'winters', 'winter'],
  ['feestelijke', 'feestelijk', 'festive'],
  ['gezellige', 'gezellig', 'cosy'],
  ['nieuwe', 'nieuw', 'new'],
  ['jaarlijkse', 'jaarlijks', 'annual'],
  ['internationale', 'internationaal', 'international'],
  ['historische', 'historisch', 'historic'],
  ['akoestische', 'akoestisch', 'acoustic'],
  ['klassieke', 'klassiek', 'classical'],
  ['moderne', 'modern', 'modern'],
  ['swingende', 'swingend', 'swinging'],
  ['verrassende', 'verrassend', 'surprising'],
  ['bijzondere', 'bijzonder', 'special'],
  ['muzikale', 'muzikaal', 'musical'],
  ['culinaire', 'culinair', 'culinary'],
  ['groene', 'groen', 'green'],
  ['nachtelijke', 'nachtelijk', 'late-night'],
  ['lokale', 'lokaal', 'local'],
  ['Europese', 'Europees', 'European'],
  ['Vlaamse', 'Vlaams', 'Flemish'],
  ['Hollandse', 'Hollands', 'Dutch'],
];

export const SUBJECTS: readonly Pair[] = [
  ['klimaat', 'climate'],
  ['kunst', 'art'],
  ['geschiedenis', 'history'],
  ['Rembrandt', 'Rembrandt'],
  ['Van Gogh', 'Van Gogh'],
  ['de Noordzee', 'the North Sea'],
  ['sterrenkunde', 'astronomy'],
  ['architectuur', 'architecture'],
  ['poëzie', 'poetry'],
  ['fotografie', 'photography'],
  ['de Gouden Eeuw', 'the Golden Age'],
  ['kunstmatige intelligentie', 'artificial intelligence'],
  ['bijen', 'bees'],
  ['de stad van morgen', 'the city of tomorrow'],
  ['duurzaam wonen', 'sustainable living'],
  ['filosofie', 'philosophy'],
  ['vogels', 'birds'],
  ['de Tweede Wereldoorlog', 'the Second World War'],
  ['mode', 'fashion'],
  ['erfgoed', 'heritage'],
  ['Bach', 'Bach'],
  ['Mozart', 'Mozart'],
  ['chocolade', 'chocolate'],
  ['bier', 'beer'],
  ['tuinieren', 'gardening'],
  ['water', 'water'],
  ['de ruimte', 'space'],
  ['schilderkunst', 'painting'],
];

export const AUDIENCES: readonly Pair[] = [
  ['kinderen', 'children'],
  ['het hele gezin', 'the whole family'],
  ['studenten', 'students'],
  ['senioren', 'seniors'],
  ['beginners', 'beginners'],
  ['gevorderden', 'advanced learners'],
  ['ondernemers', 'entrepreneurs'],
  ['liefhebbers', 'enthusiasts'],
  ['nieuwkomers', 'newcomers'],
  ['jongeren', 'young people'],
];

export const FIRST_NAMES = [
  'Anna', 'Daan', 'Emma', 'Lucas', 'Julia', 'Sem', 'Sophie', 'Noah', 'Lotte', 'Finn', 'Eva',
  'Bram', 'Sanne', 'Thijs', 'Fleur', 'Ruben', 'Isa', 'Jesse', 'Mila', 'Lars', 'Noor', 'Wout',
  'Femke', 'Joris', 'Lieke', 'Pieter', 'Marieke', 'Koen', 'Elise', 'Stijn', 'Hanna', 'Arne',
];

export const SURNAMES = [
  'de Vries', 'Jansen', 'de Jong', 'Bakker', 'Visser', 'Smit', 'Meijer', 'de Boer', 'Mulder',
  'de Groot', 'Bos', 'Vos', 'Peters', 'Hendriks', 'van Dijk', 'Peeters', 'Janssens', 'Maes',
  'Willems', 'Claes', 'Goossens', 'Wouters', 'De Smet', 'Verhoeven', 'van den Berg', 'Dekker',
];

/** Ensembles a performer leads: "Anna Bos Kwartet" / "Anna Bos Quartet". */
export const ENSEMBLES: readonly Pair[] = [
  ['Kwartet', 'Quartet'],
  ['Trio', 'Trio'],
  ['Band', 'Band'],
  ['Ensemble', 'Ensemble'],
  ['Kamerkoor', 'Chamber Choir'],
  ['Orkest', 'Orchestra'],
  ['Collectief', 'Collective'],
];

export interface City {
  name: string;
  lat: number;
  lng: number;
  province: string;
  country: string;
  /** NL (`1234 AB`), BE (`1000`), US (`10001`), other (digits). */
  postal: 'nl' | 'be' | 'us' | 'other';
  zipBase: number;
  phone: string;
  state?: string;
  /** Relative frequency of venues here. */
  weight: number;
}

const nl = (name: string, lat: number, lng: number, province: string, zipBase: number, area: string, weight = 2): City => ({
  name, lat, lng, province, country: 'Netherlands', postal: 'nl', zipBase, phone: `+31 ${area}`, weight,
});
const be = (name: string, lat: number, lng: number, province: string, zipBase: number, area: string, weight = 2): City => ({
  name, lat, lng, province, country: 'Belgium', postal: 'be', zipBase, phone: `+32 ${area}`, weight,
});

/** Mostly the Netherlands and Belgium; a few abroad (New York for the America/New_York events). */
export const CITIES: readonly City[] = [
  nl('Amsterdam', 52.3676, 4.9041, 'Noord-Holland', 1011, '20', 10),
  nl('Rotterdam', 51.9244, 4.4777, 'Zuid-Holland', 3011, '10', 6),
  nl('Den Haag', 52.0705, 4.3007, 'Zuid-Holland', 2511, '70', 5),
  nl('Utrecht', 52.0907, 5.1214, 'Utrecht', 3511, '30', 6),
  nl('Eindhoven', 51.4416, 5.4697, 'Noord-Brabant', 5611, '40', 3),
  nl('Groningen', 53.2194, 6.5665, 'Groningen', 9711, '50', 3),
  nl('Tilburg', 51.5555, 5.0913, 'Noord-Brabant', 5011, '13'),
  nl('Almere', 52.3508, 5.2647, 'Flevoland', 1315, '36'),
  nl('Breda', 51.5719, 4.7683, 'Noord-Brabant', 4811, '76'),
  nl('Nijmegen', 51.8126, 5.8372, 'Gelderland', 6511, '24', 3),
  nl('Arnhem', 51.9851, 5.8987, 'Gelderland', 6811, '26'),
  nl('Haarlem', 52.3874, 4.6462, 'Noord-Holland', 2011, '23', 3),
  nl('Maastricht', 50.8514, 5.691, 'Limburg', 6211, '43', 3),
  nl('Leiden', 52.1601, 4.497, 'Zuid-Holland', 2311, '71', 3),
  nl('Zwolle', 52.5168, 6.083, 'Overijssel', 8011, '38'),
  nl('Enschede', 52.2215, 6.8937, 'Overijssel', 7511, '53'),
  nl('Delft', 52.0116, 4.3571, 'Zuid-Holland', 2611, '15'),
  nl('Leeuwarden', 53.2012, 5.7999, 'Friesland', 8911, '58'),
  nl("'s-Hertogenbosch", 51.6978, 5.3037, 'Noord-Brabant', 5211, '73'),
  nl('Amersfoort', 52.1561, 5.3878, 'Utrecht', 3811, '33'),
  nl('Deventer', 52.2661, 6.1552, 'Overijssel', 7411, '570', 1),
  nl('Middelburg', 51.4988, 3.6136, 'Zeeland', 4331, '118', 1),
  nl('Alkmaar', 52.6324, 4.7534, 'Noord-Holland', 1811, '72', 1),
  nl('Assen', 52.9925, 6.5649, 'Drenthe', 9401, '592', 1),
  be('Brussel', 50.8503, 4.3517, 'Brussel', 1000, '2', 5),
  be('Antwerpen', 51.2194, 4.4025, 'Antwerpen', 2000, '3', 5),
  be('Gent', 51.0543, 3.7174, 'Oost-Vlaanderen', 9000, '9', 4),
  be('Brugge', 51.2093, 3.2247, 'West-Vlaanderen', 8000, '50', 2),
  be('Leuven', 50.8798, 4.7005, 'Vlaams-Brabant', 3000, '16', 2),
  be('Mechelen', 51.0259, 4.4776, 'Antwerpen', 2800, '15', 1),
  be('Hasselt', 50.9307, 5.3325, 'Limburg', 3500, '11', 1),
  be('Luik', 50.6326, 5.5797, 'Luik', 4000, '4', 1),
  be('Kortrijk', 50.8279, 3.2649, 'West-Vlaanderen', 8500, '56', 1),
  be('Oostende', 51.2154, 2.9286, 'West-Vlaanderen', 8400, '59', 1),
  {
    name: 'New York', lat: 40.7128, lng: -74.006, province: '', state: 'NY', country: 'United States',
    postal: 'us', zipBase: 10001, phone: '+1 212', weight: 2,
  },
  {
    name: 'London', lat: 51.5074, lng: -0.1278, province: '', country: 'United Kingdom',
    postal: 'other', zipBase: 0, phone: '+44 20', weight: 1,
  },
  {
    name: 'Berlin', lat: 52.52, lng: 13.405, province: 'Berlin', country: 'Germany',
    postal: 'other', zipBase: 10115, phone: '+49 30', weight: 1,
  },
  {
    name: 'Köln', lat: 50.9375, lng: 6.9603, province: 'Nordrhein-Westfalen', country: 'Germany',
    postal: 'other', zipBase: 50667, phone: '+49 221', weight: 1,
  },
];

export const STREETS_NL = [
  'Kerkstraat', 'Dorpsstraat', 'Stationsweg', 'Marktplein', 'Molenweg', 'Schoolstraat',
  'Julianalaan', 'Beatrixlaan', 'Nieuwstraat', 'Hoofdstraat', 'Havenkade', 'Oudegracht',
  'Lindenlaan', 'Prinsengracht', 'Vondelstraat', 'Spoorlaan', 'Torenstraat', 'Kastanjelaan',
];
export const STREETS_BE = [
  'Grote Markt', 'Kouter', 'Meir', 'Veldstraat', 'Stationsstraat', 'Kerkplein', 'Leopoldlaan',
  'Bredabaan', 'Vrijdagmarkt', 'Korenmarkt', 'Steenweg', 'Boulevard',
];
export const STREETS_OTHER = ['Main Street', 'High Street', 'Hauptstraße', 'Broadway', 'Park Avenue'];

/** Venue types: "Theater De Kroon" / "De Kroon Theatre". */
export const VENUE_TYPES: readonly Pair[] = [
  ['Theater', 'Theatre'],
  ['Concertzaal', 'Concert Hall'],
  ['Cultuurhuis', 'Culture House'],
  ['Bibliotheek', 'Library'],
  ['Museum', 'Museum'],
  ['Poppodium', 'Music Venue'],
  ['Kerk', 'Church'],
  ['Park', 'Park'],
  ['Stadsschouwburg', 'City Theatre'],
  ['Café', 'Café'],
  ['Buurthuis', 'Community Centre'],
  ['Sporthal', 'Sports Hall'],
  ['Galerie', 'Gallery'],
  ['Filmhuis', 'Cinema'],
  ['Boekhandel', 'Bookshop'],
];

export const PROPER_NAMES = [
  'De Kroon', 'Het Anker', 'De Vonk', 'De Kade', 'Het Paleis', 'De Molen', 'Zonnehof',
  'De Boog', 'Het Lichtpunt', 'De Nieuwe Vorst', 'De Harmonie', 'Het Klooster', 'De Spiegel',
  'Het Bolwerk', 'De Pelikaan', 'Het Veerhuis', 'De Oranjerie', 'Het Wapen', 'De Lindeboom',
  'De Vlasfabriek', 'Het Pakhuis', 'De Gieterij', 'Sint-Jan', 'De Regenboog', 'Het Baken',
];

/** Organizer forms: [Dutch pattern, English pattern]; `%` is the name part. */
export const ORGANIZER_FORMS: readonly Pair[] = [
  ['Stichting %', '% Foundation'],
  ['Vereniging %', '% Society'],
  ['% Producties', '% Productions'],
  ['Festivalbureau %', '% Festival Office'],
  ['Culturele Raad %', '% Arts Council'],
  ['Vrienden van %', 'Friends of %'],
  ['Buurtcomité %', '% Neighbourhood Committee'],
];

export const ORGANIZER_NAMES = [
  'Kunstkracht', 'Muziekpunt', 'Podiumkunst', 'De Ontmoeting', 'Stadsleven', 'Klankkast',
  'Open Huis', 'Zomerzin', 'Noorderlicht', 'Zuiderzon', 'Het Atelier', 'Cultuurkoepel',
  'Spel en Zo', 'Lees Mee', 'Groen Doen', 'Oude Muziek', 'Nieuwe Klanken', 'Filmliga',
];

/** Categories: the first `--categories` of these, then combinations with CATEGORY_QUALIFIERS. */
export const CATEGORY_NAMES: readonly Pair[] = [
  ['Muziek', 'Music'], ['Theater', 'Theatre'], ['Dans', 'Dance'], ['Film', 'Film'],
  ['Kunst', 'Art'], ['Tentoonstellingen', 'Exhibitions'], ['Lezingen', 'Lectures'],
  ['Workshops', 'Workshops'], ['Kinderen', 'Children'], ['Familie', 'Family'],
  ['Sport', 'Sports'], ['Natuur', 'Nature'], ['Eten en drinken', 'Food and drink'],
  ['Markten', 'Markets'], ['Festivals', 'Festivals'], ['Literatuur', 'Literature'],
  ['Wetenschap', 'Science'], ['Technologie', 'Technology'], ['Geschiedenis', 'History'],
  ['Erfgoed', 'Heritage'], ['Rondleidingen', 'Guided tours'], ['Cursussen', 'Courses'],
  ['Gezondheid', 'Health'], ['Wandelen', 'Walking'], ['Fietsen', 'Cycling'],
  ['Comedy', 'Comedy'], ['Klassieke muziek', 'Classical music'], ['Jazz', 'Jazz'],
  ['Pop', 'Pop'], ['Rock', 'Rock'], ['Elektronische muziek', 'Electronic music'],
  ['Wereldmuziek', 'World music'], ['Koren', 'Choirs'], ['Opera', 'Opera'],
  ['Cabaret', 'Stand-up'], ['Muziektheater', 'Musical theatre'], ['Fotografie', 'Photography'],
  ['Vormgeving', 'Design'], ['Architectuur', 'Architecture'], ['Mode', 'Fashion'],
  ['Gaming', 'Gaming'], ['Zakelijk', 'Business'], ['Netwerken', 'Networking'],
  ['Politiek', 'Politics'], ['Duurzaamheid', 'Sustainability'], ['Religie', 'Religion'],
  ['Vrijwilligerswerk', 'Volunteering'], ['Senioren', 'Seniors'], ['Jongeren', 'Youth'],
  ['Online', 'Online'],
];

export const CATEGORY_QUALIFIERS: readonly Pair[] = [
  ['voor kinderen', 'for children'],
  ['in de buitenlucht', 'outdoors'],
  ['voor beginners', 'for beginners'],
  ['op zondag', 'on Sundays'],
  ['voor senioren', 'for seniors'],
  ['in de regio', 'in the region'],
];

/** Tags: the first `--tags` of these, then "<tag> <city>" combinations. */
export const TAG_NAMES: readonly Pair[] = [
  ['gratis', 'free'], ['buiten', 'outdoors'], ['binnen', 'indoors'],
  ['rolstoeltoegankelijk', 'wheelchair accessible'], ['engelstalig', 'in english'],
  ['nederlandstalig', 'in dutch'], ['avond', 'evening'], ['ochtend', 'morning'],
  ['middag', 'afternoon'], ['weekend', 'weekend'], ['zomer', 'summer'], ['winter', 'winter'],
  ['lente', 'spring'], ['herfst', 'autumn'], ['kerst', 'christmas'], ['pasen', 'easter'],
  ['koningsdag', "king's day"], ['carnaval', 'carnival'], ['live', 'live'],
  ['akoestisch', 'acoustic'], ['première', 'premiere'], ['uitverkocht', 'sold out'],
  ['nieuw', 'new'], ['klassiek', 'classic'], ['gezinnen', 'families'], ['18+', '18 plus'],
  ['studenten', 'students'], ['hond welkom', 'dogs welcome'], ['met pauze', 'with interval'],
  ['reserveren', 'booking required'], ['inloop', 'walk-in'], ['jazz', 'jazz'], ['blues', 'blues'],
  ['soul', 'soul'], ['hiphop', 'hip hop'], ['techno', 'techno'], ['folk', 'folk'],
  ['singer-songwriter', 'singer-songwriter'], ['piano', 'piano'], ['gitaar', 'guitar'],
  ['orgel', 'organ'], ['strijkkwartet', 'string quartet'], ['bigband', 'big band'],
  ['poëzie', 'poetry'], ['verhalen', 'stories'], ['boeken', 'books'], ['schilderen', 'painting'],
  ['beeldhouwen', 'sculpture'], ['keramiek', 'ceramics'], ['textiel', 'textiles'],
  ['koken', 'cooking'], ['bier', 'beer'], ['wijn', 'wine'], ['koffie', 'coffee'],
  ['vegetarisch', 'vegetarian'], ['streekproducten', 'local produce'], ['tuin', 'garden'],
  ['vogels', 'birds'], ['sterren', 'stars'], ['fiets', 'bicycle'], ['hardlopen', 'running'],
  ['zwemmen', 'swimming'], ['yoga', 'yoga'], ['meditatie', 'meditation'], ['dansen', 'dancing'],
  ['salsa', 'salsa'], ['tango', 'tango'], ['ballet', 'ballet'], ['circus', 'circus'],
  ['poppenkast', 'puppet show'], ['goochelen', 'magic'], ['quiz', 'quiz'], ['spelletjes', 'games'],
  ['schaken', 'chess'], ['robotica', 'robotics'], ['programmeren', 'coding'],
  ['ondernemen', 'entrepreneurship'], ['klimaat', 'climate'], ['energie', 'energy'],
  ['water', 'water'], ['monumenten', 'monuments'], ['kastelen', 'castles'], ['kerken', 'churches'],
  ['molens', 'windmills'], ['havens', 'harbours'], ['strand', 'beach'], ['bos', 'forest'],
  ['heide', 'heathland'], ['rivier', 'river'], ['nacht', 'night'], ['zondag', 'sunday'],
  ['zaterdag', 'saturday'], ['vrijdag', 'friday'], ['feest', 'party'], ['jubileum', 'anniversary'],
  ['benefiet', 'benefit'], ['lokaal', 'local'], ['internationaal', 'international'],
  ['workshop', 'workshop'], ['lezing', 'talk'],
];

/** Description sentences: {kind}, {subject}, {audience}, {venue}, {city}, {weekday}. */
export const SENTENCES: readonly Pair[] = [
  ['Kom naar deze {kind} in {city}.', 'Join us for this {kind} in {city}.'],
  ['Deze {kind} is er voor {audience}.', 'This {kind} is for {audience}.'],
  ['We verwelkomen je graag in {venue}.', 'We look forward to welcoming you at {venue}.'],
  ['Het programma gaat over {subject}, met ruimte voor vragen.', 'The programme is about {subject}, with time for questions.'],
  ['De zaal gaat een half uur voor aanvang open.', 'Doors open half an hour before the start.'],
  ['Na afloop is er een drankje in de foyer.', 'Afterwards there are drinks in the foyer.'],
  ['Vorig jaar was deze {kind} binnen een week uitverkocht.', 'Last year this {kind} sold out within a week.'],
  ['Neem gerust vrienden en familie mee.', 'Feel free to bring friends and family.'],
  ['Iedere {weekday} een nieuw thema: deze keer {subject}.', 'A new theme every {weekday}: this time {subject}.'],
  ['Tickets zijn verkrijgbaar aan de kassa en online.', 'Tickets are available at the box office and online.'],
  ['De locatie is goed bereikbaar met het openbaar vervoer.', 'The venue is easy to reach by public transport.'],
  ['Let op: het aantal plaatsen is beperkt.', 'Please note: places are limited.'],
];

export const WEEKDAYS: readonly Pair[] = [
  ['maandag', 'Monday'], ['dinsdag', 'Tuesday'], ['woensdag', 'Wednesday'],
  ['donderdag', 'Thursday'], ['vrijdag', 'Friday'], ['zaterdag', 'Saturday'], ['zondag', 'Sunday'],
];

export const TERM_DESCRIPTIONS: Pair = [
  'Alle evenementen in de categorie %.',
  'Every event in the category %.',
];
