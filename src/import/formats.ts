/** The formats `svc <family> import` reads (light: the command's options load with every start). */
export const importFormats = ['csv', 'ndjson', 'json'] as const;
export type ImportFormat = (typeof importFormats)[number];
