/**
 * Word lists for the seeded tenant. Some entries deliberately carry quotes,
 * apostrophes, commas, semicolons, ampersands and non-ASCII letters (and one
 * astral-plane character), because exports are tested with such values.
 * Every entry is single-line and trimmed, so any single-line column takes it.
 */

/** A city with its ISO 3166-1 country code, a postal code pattern (# = digit) and a region. */
export interface City {
  readonly name: string;
  readonly country: string;
  readonly postal: string;
  readonly region: string;
  readonly currency: string;
  readonly phone: string;
}

export const CITIES: readonly City[] = [
  { name: 'Berlin', country: 'DE', postal: '1####', region: 'Berlin', currency: 'EUR', phone: '+49 30' },
  { name: 'München', country: 'DE', postal: '8####', region: 'Bayern', currency: 'EUR', phone: '+49 89' },
  { name: 'Köln', country: 'DE', postal: '5####', region: 'Nordrhein-Westfalen', currency: 'EUR', phone: '+49 221' },
  { name: 'Düsseldorf', country: 'DE', postal: '4####', region: 'Nordrhein-Westfalen', currency: 'EUR', phone: '+49 211' },
  { name: 'Zürich', country: 'CH', postal: '80##', region: 'ZH', currency: 'CHF', phone: '+41 44' },
  { name: 'Genève', country: 'CH', postal: '12##', region: 'GE', currency: 'CHF', phone: '+41 22' },
  { name: 'Wien', country: 'AT', postal: '1###', region: 'Wien', currency: 'EUR', phone: '+43 1' },
  { name: 'Paris', country: 'FR', postal: '750##', region: 'Île-de-France', currency: 'EUR', phone: '+33 1' },
  { name: 'Besançon', country: 'FR', postal: '250##', region: 'Bourgogne-Franche-Comté', currency: 'EUR', phone: '+33 3' },
  { name: 'Kraków', country: 'PL', postal: '3#-###', region: 'Małopolskie', currency: 'PLN', phone: '+48 12' },
  { name: 'Łódź', country: 'PL', postal: '9#-###', region: 'Łódzkie', currency: 'PLN', phone: '+48 42' },
  { name: 'Malmö', country: 'SE', postal: '2## ##', region: 'Skåne', currency: 'SEK', phone: '+46 40' },
  { name: 'Århus', country: 'DK', postal: '8###', region: 'Midtjylland', currency: 'DKK', phone: '+45 8' },
  { name: 'Reykjavík', country: 'IS', postal: '1##', region: 'Höfuðborgarsvæðið', currency: 'ISK', phone: '+354 5' },
  { name: 'London', country: 'GB', postal: 'EC1A #BB', region: 'Greater London', currency: 'GBP', phone: '+44 20' },
  { name: 'Dublin', country: 'IE', postal: 'D0# X###', region: 'Leinster', currency: 'EUR', phone: '+353 1' },
  { name: 'São Paulo', country: 'BR', postal: '0####-###', region: 'SP', currency: 'BRL', phone: '+55 11' },
  { name: 'New York', country: 'US', postal: '100##', region: 'NY', currency: 'USD', phone: '+1 212' },
  { name: 'İstanbul', country: 'TR', postal: '34###', region: 'İstanbul', currency: 'TRY', phone: '+90 212' },
  { name: '東京', country: 'JP', postal: '1##-####', region: '東京都', currency: 'JPY', phone: '+81 3' },
];

export const FIRST_NAMES: readonly string[] = [
  'Anna', 'Lukas', 'Sophie', 'Jonas', 'Émilie', 'Björn', 'Zoë', 'Jürgen', 'Agnieszka', 'Søren', 'Chloé', 'Mateusz',
  'Hannah', 'Paul', 'Inès', 'Ólafur', 'Marta', 'Noah', 'Léa', 'Tomás', 'Yuki', 'Ayşe', 'João', 'Mia',
];

export const LAST_NAMES: readonly string[] = [
  'Müller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', "O'Brien", 'Dubois', 'Lefèvre', 'Nowak', 'Wójcik', 'Jørgensen',
  'Öztürk', 'García', 'Núñez', 'Smith', 'Brown', 'Svensson', 'Gonçalves', 'Håkansson', 'Sørensen', 'Kowalski',
  'Tanaka', 'Meier', 'Keller',
];

export const COMPANY_STEMS: readonly string[] = [
  'Alpenblick', 'Nordlicht', 'Bäckerei Sonnenschein', 'Café Zur Post', 'Müller & Söhne', 'Smith, Jones & Partners',
  'Ça Va; Bistro', 'Örtliche Werke', 'Łąka Ogrody', 'Fjällräven Logistik', '"Zur Alten Mühle"', "O'Neill Engineering",
  'Vogel Drucktechnik', 'Blauwal Software', 'Société Générale de Mécanique', 'Grüne Wiese', 'Bergkristall',
  'Atlas Metallbau', 'Helvetia Feinmechanik', 'Rhein-Main Transporte', 'Solaris Energie', 'Lumière Optique',
  'Brücken & Wege', 'Kaffeerösterei Bohne 🫘',
];

/** Legal forms of companies by country (ISO code); `*` for the rest. */
export const COMPANY_FORMS: Readonly<Record<string, readonly string[]>> = {
  DE: ['GmbH', 'AG', 'KG', 'GmbH & Co. KG', 'e.K.'],
  AT: ['GmbH', 'AG', 'OG'],
  CH: ['AG', 'GmbH', 'SA', 'Sàrl'],
  FR: ['SARL', 'SA', 'SAS'],
  PL: ['Sp. z o.o.', 'S.A.'],
  SE: ['AB'],
  DK: ['ApS', 'A/S'],
  IS: ['ehf.', 'hf.'],
  GB: ['Ltd', 'PLC', 'LLP'],
  IE: ['Ltd', 'DAC'],
  BR: ['Ltda.', 'S.A.'],
  US: ['Inc.', 'LLC', 'Corp.'],
  TR: ['A.Ş.', 'Ltd. Şti.'],
  JP: ['K.K.', 'G.K.'],
  '*': ['Ltd'],
};

export const STREETS: readonly string[] = [
  'Hauptstraße', 'Bahnhofstrasse', 'Rue de la Paix', 'ulica Długa', 'Storgatan', 'High Street', 'Königsallee',
  'Avenida Paulista', 'Marktplatz', 'Am Hafen', 'Lindenweg', 'Ringstraße',
];

export const DEPARTMENTS: readonly string[] = ['Einkauf', 'Vertrieb', 'IT', 'Buchhaltung', 'Geschäftsführung', 'Logistik'];

export const POSITIONS: readonly string[] = ['Head of Purchasing', 'Sales Manager', 'CTO', 'Accountant', 'Managing Director', 'Office Manager'];

export const CURRENCIES: readonly string[] = ['EUR', 'CHF', 'USD', 'GBP', 'PLN', 'SEK'];

/** Products: name, unit (UN/CEFACT), selling price, tax rate, manufacturer. */
export const PRODUCTS: readonly (readonly [string, string, number, number, string])[] = [
  ['Espresso machine "Barista Pro"', 'C62', 1299, 19, 'Kaffeetechnik GmbH'],
  ['Coffee beans, 1 kg', 'KGM', 24.9, 7, 'Kaffeerösterei Bohne'],
  ['Milk frother', 'C62', 89, 19, 'Kaffeetechnik GmbH'],
  ['Descaling tablets; 10 pcs', 'C62', 12.5, 19, 'Sauber AG'],
  ['Service hour', 'HUR', 95, 19, ''],
  ['Travel flat rate', 'C62', 60, 19, ''],
  ['Grinder Mühle 64 mm', 'C62', 449, 19, 'Mahlwerk Zürich AG'],
  ['Porcelain cup, 0.2 l', 'C62', 8.9, 19, 'Porzellan Fürstenberg'],
  ['Water filter cartridge', 'C62', 39, 19, 'AquaPur'],
  ['Barista training (½ day)', 'C62', 350, 19, ''],
  ['Cleaning brush set', 'SET', 19.9, 19, 'Sauber AG'],
  ['Cold brew bottle 1 l', 'C62', 29, 19, 'Glaswerk Jena'],
];

export const PROJECT_NAMES: readonly string[] = [
  'Shop refit', 'ERP migration', 'Café opening in Zürich', 'Warehouse move', 'Website relaunch', 'Barista academy',
  'Rollout "Bohne 2.0"', 'Annual maintenance, phase 2',
];

export const TICKET_SUBJECTS: readonly string[] = [
  'Machine leaks water', 'Invoice address wrong', 'Grinder makes noise; please check', 'Delivery incomplete',
  'Request for quotation', 'Password reset for portal', 'Display shows "E17"', 'Milk frother too cold',
];

export const TASK_NAMES: readonly string[] = ['Prepare offer', 'Order spare parts', 'Call customer back', 'Install machine', 'Write report', 'Check stock'];

export const APPOINTMENT_NAMES: readonly string[] = ['Site visit', 'Quarterly review', 'Installation', 'Training session', 'Trade fair, booth 4', 'Call with supplier'];

export const CAMPAIGN_NAMES: readonly string[] = ['Spring promotion 2025', 'Trade fair "Caffè Expo"', 'Newsletter: Herbst/Winter'];

/** Multi-line texts for description-like columns (trimmed, line breaks inside only). */
export const DESCRIPTIONS: readonly string[] = [
  'Key account.\nPrefers contact by e-mail; no calls before 10:00.',
  'Pays reliably, usually within 14 days.',
  'Met at the trade fair in Köln.\nInterested in "Barista Pro", asked for a quote; follow up in Q3.',
  'Delivery to the back entrance, ring twice.\r\nLoading ramp closes at 16:00.',
  'Special terms: 2% discount, 30 days net; see contract.',
  'Zweigstelle in Genève — Ansprechpartnerin spricht Französisch.',
  '',
  '',
  '',
];
