/** German texts the API answers with besides error messages; keys as in apiTexts.en.ts. */
import type { ApiTextKey } from './apiTexts.en.ts';

export const apiTextsDe: Record<ApiTextKey, string> = {
  'field.invalid_parent': 'Wähle eine Seite dieses Teichs, die nicht im Papierkorb liegt und die du lesen kannst.',
  'field.invalid_sibling': 'Wähle eine Seite, die am neuen Ort daneben steht: gleiche übergeordnete Seite, nicht im Papierkorb, lesbar und nicht die Seite selbst.',
  'field.index_out_of_range': 'Der Index ist größer als die Zahl der Seiten auf dieser Ebene.',
  'field.label_not_in_pond': 'Wähle ein Label dieses Teichs.',
  'field.labels_not_in_pond': 'Jedes Label muss zum Teich der Seite gehören.',
  'field.nothing_to_change': 'Gib einen neuen Namen, eine neue Farbe oder ein neues übergeordnetes Label an.',
  'field.too_many_labels': 'Eine Seite trägt höchstens 50 Labels.',
  'field.unknown_account': 'Es gibt kein Konto mit dieser ID.',
  'field.unknown_scope': 'Dieser Teich hat kein solches Label und keine solche Seite.',
  'subject.signed-in': 'Alle angemeldeten Benutzer',
  'subject.public': 'Alle (öffentlich, ohne Anmeldung)',
  'user.deleted': 'Gelöschter Benutzer',
  'feed.pond.subtitle': 'Zuletzt geänderte Seiten',
  'feed.page.subtitle': 'Versionsverlauf',
  'feed.version.auto': 'Automatisch gespeicherte Version',
  'feed.version.MANUAL': 'Gespeicherte Version',
  'feed.version.pre_restore': 'Vor einer Wiederherstellung gespeicherte Version',
  'legal.imprint': 'Impressum',
  'legal.privacy': 'Datenschutzerklärung',
  'legal.notConfigured': 'Diese Seite wurde von der Betreiberin oder dem Betreiber dieser Instanz noch nicht eingerichtet.',
  'transclusion.empty': 'Diese eingebettete Seite hat noch keinen Text.',
  'home.welcomeMarkdown':
    '# Willkommen bei {instance}\n\nEine gemeinsame Wissensbasis: Hier werden Seiten zusammen geschrieben, miteinander verlinkt und in Teichen gesammelt. Öffentlich freigegebene Seiten kann jede und jeder lesen, auch ohne Konto.\n\n[Melde dich an](/login), um die Seiten zu lesen und zu bearbeiten, die mit dir geteilt sind.',
};
