// The prompt editor UI (spec 1 §2, §3, §5) on the editor model of ../editor.
//
// Embed it as a controlled component:
//   <PromptEditor value={prompt} negative={negative} onChange={(p, n) => ...} dialect="webui" />
// `onChange` receives the re-rendered texts after every edit; new `value` /
// `negative` from outside are parsed into the active preset. The `prompts`
// URL parameter is read once on mount and removed from the URL.
export { PromptEditor, type PromptEditorProps } from './PromptEditor';
export { PromptEditorPage } from './PromptEditorPage';
export {
  DICTIONARY_MIN_WIDTH,
  DICTIONARY_VERSION,
  dictionaryShownByDefault,
  presetFromTexts,
  switchDialect,
  textsOf,
  type PromptTexts,
} from './model';
