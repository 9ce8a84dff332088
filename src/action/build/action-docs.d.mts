// Types for action-docs.mjs (a plain script, so that `npm run docs` needs no build).
export declare const MARKERS: {
  inputs: [string, string]
  outputs: [string, string]
  settings: [string, string]
  tests: [string, string]
}
export interface Tables {
  inputs: string
  outputs: string
  settings: string
  tests: string
}
export declare function renderSettings(settingsJson: string): string
export declare function renderTests(catalogueJson: string): string
export declare function renderTables(
  actionYml: string,
  settingsJson?: string,
  catalogueJson?: string
): Tables
export declare function updateTables(text: string, tables: Tables): string
export declare const INPUTS_MODULE: string
export declare function renderInputsModule(actionYml: string): string
