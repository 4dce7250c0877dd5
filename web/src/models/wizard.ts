// The upload wizard's state as pure functions (issue 19 item 6): choose a
// file -> upload with progress -> what the server read (type, family, rank,
// trigger words, hashes) prefills the form -> name, type, base model,
// description, tags, trigger words, fee, downloads -> create, commit and
// publish. The limits mirror protocol/src/models/rules.rs; the server checks
// again and its keys are shown as they come.
import type { MessageKey } from '../i18n/messages';
import type { ConfirmedModelFile, ModelType } from './api';
import { splitList } from './format';
import type { UploadProgress } from './upload';

export const MAX_NAME_CHARS = 80;
export const MAX_VERSION_NAME_CHARS = 40;
export const MAX_DESCRIPTION_CHARS = 5000;
export const MAX_TRAINED_WORDS = 32;
export const MAX_TRAINED_WORD_CHARS = 100;
export const MAX_TAGS = 20;

export interface WizardForm {
  name: string;
  model_type: ModelType;
  base_model: string;
  version_name: string;
  description: string;
  tags: string;
  trained_words: string;
  is_agency_fee: boolean;
  agency_fee: number;
  allow_download: boolean;
  nsfw: boolean;
}

export type WizardStep =
  | { step: 'choose' }
  | { step: 'uploading'; fileName: string; progress: UploadProgress }
  | { step: 'details'; fileName: string; file: ConfirmedModelFile }
  | { step: 'saving'; fileName: string; file: ConfirmedModelFile; stage: 'create' | 'commit' | 'publish' }
  | { step: 'done'; modelId: string; modelVerNo: string; published: boolean };

export interface WizardState {
  at: WizardStep;
  form: WizardForm;
  /** The last failure: a message key (server or page) or the server's own text. */
  error: { key: MessageKey } | { text: string } | null;
}

export const EMPTY_FORM: WizardForm = {
  name: '',
  model_type: 'lora',
  base_model: '',
  version_name: 'v1.0',
  description: '',
  tags: '',
  trained_words: '',
  is_agency_fee: false,
  agency_fee: 1,
  allow_download: true,
  nsfw: false,
};

export function initialWizard(): WizardState {
  return { at: { step: 'choose' }, form: EMPTY_FORM, error: null };
}

/** A file name the wizard takes: only `.safetensors` (pickles can run code; the server refuses them too). */
export function fileProblem(name: string, size: number, maxBytes: number | null): MessageKey | null {
  if (!/\.safetensors$/i.test(name)) return 'modelFileInvalid';
  if (size <= 8) return 'modelHeaderInvalid';
  if (maxBytes !== null && size > maxBytes) return 'modelFileTooLarge';
  return null;
}

/** A file name without its extension, as a model name (`my_style-v2.safetensors` -> `my style v2`). */
export function nameFromFile(fileName: string): string {
  return fileName
    .replace(/\.[^.]+$/, '')
    .replace(/[_-]+/g, ' ')
    .trim()
    .slice(0, MAX_NAME_CHARS);
}

export function startUpload(s: WizardState, fileName: string, size: number): WizardState {
  return { ...s, error: null, at: { step: 'uploading', fileName, progress: { sent: 0, total: size, phase: 'uploading' } } };
}

export function progressed(s: WizardState, progress: UploadProgress): WizardState {
  return s.at.step === 'uploading' ? { ...s, at: { ...s.at, progress } } : s;
}

/** The server read the file: the form is prefilled from what it found (the user's choices kept). */
export function uploaded(s: WizardState, fileName: string, file: ConfirmedModelFile): WizardState {
  const form: WizardForm = {
    ...s.form,
    name: s.form.name || nameFromFile(fileName),
    model_type: file.detected_type ?? s.form.model_type,
    base_model: file.detected_family ?? s.form.base_model,
    trained_words: s.form.trained_words || (file.trained_words ?? []).join(', '),
  };
  return { at: { step: 'details', fileName, file }, form, error: null };
}

export function failed(s: WizardState, error: WizardState['error']): WizardState {
  // A failed upload goes back to choosing a file; a failed save stays on the form.
  if (s.at.step === 'uploading') return { ...s, at: { step: 'choose' }, error };
  if (s.at.step === 'saving') return { ...s, at: { step: 'details', fileName: s.at.fileName, file: s.at.file }, error };
  return { ...s, error };
}

export function edit(s: WizardState, patch: Partial<WizardForm>): WizardState {
  return { ...s, form: { ...s.form, ...patch } };
}

export function saving(s: WizardState, stage: 'create' | 'commit' | 'publish'): WizardState {
  if (s.at.step !== 'details' && s.at.step !== 'saving') return s;
  return { ...s, error: null, at: { step: 'saving', fileName: s.at.fileName, file: s.at.file, stage } };
}

export function finished(s: WizardState, modelId: string, modelVerNo: string, published: boolean): WizardState {
  return { ...s, error: null, at: { step: 'done', modelId, modelVerNo, published } };
}

/** The first problem of the form (the server's key for it), or null. */
export function formProblem(f: WizardForm, families: readonly string[]): MessageKey | null {
  const name = f.name.trim();
  if (name === '' || [...name].length > MAX_NAME_CHARS) return 'models.form.nameInvalid';
  if ([...f.version_name.trim()].length > MAX_VERSION_NAME_CHARS) return 'models.form.versionInvalid';
  if (f.base_model === '' || (families.length > 0 && !families.includes(f.base_model))) return 'PleaseSelectBaseName';
  if ([...f.description].length > MAX_DESCRIPTION_CHARS) return 'models.form.descriptionInvalid';
  const words = splitList(f.trained_words);
  if (words.length > MAX_TRAINED_WORDS || words.some((w) => [...w].length > MAX_TRAINED_WORD_CHARS)) return 'models.form.wordsInvalid';
  if (splitList(f.tags).length > MAX_TAGS) return 'models.form.tagsInvalid';
  if (f.is_agency_fee && (!Number.isInteger(f.agency_fee) || f.agency_fee < 1)) return 'agencyFeeInvalid';
  return null;
}

/** `resource/createModel`'s body (DESIGN.md Contracts; `sha256` lets the server refuse a changed file). */
export function createBody(f: WizardForm, file: ConfirmedModelFile) {
  return {
    file_id: file.file_id,
    name: f.name.trim(),
    model_type: f.model_type,
    base_model: f.base_model,
    sha256: file.sha256,
    description: f.description,
    ...(f.version_name.trim() !== '' ? { version_name: f.version_name.trim() } : {}),
  };
}

/** `resource/commitModel`'s body: the draft's details. */
export function commitBody(f: WizardForm, modelId: string, modelVerNo: string, images: string[] = []) {
  return {
    model_id: modelId,
    model_ver_no: modelVerNo,
    name: f.name.trim(),
    version_name: f.version_name.trim(),
    description: f.description,
    tags: splitList(f.tags),
    trained_words: splitList(f.trained_words),
    images,
    is_agency_fee: f.is_agency_fee,
    agency_fee: f.is_agency_fee ? f.agency_fee : 0,
    allow_download: f.allow_download,
    nsfw: f.nsfw,
  };
}

/** `resource/commitModel`'s body for a new version of an existing model: only the version's details (the model's own stay as they are). */
export function versionCommitBody(f: WizardForm, modelId: string, modelVerNo: string, images: string[] = []) {
  return {
    model_id: modelId,
    model_ver_no: modelVerNo,
    version_name: f.version_name.trim(),
    trained_words: splitList(f.trained_words),
    images,
  };
}

/** The form for a new version of `model`: its name, type and family (the file's detection may still change the last two). */
export function forVersionOf(s: WizardState, model: { name: string; model_type: ModelType; base_model: string }): WizardState {
  return { ...s, form: { ...s.form, name: model.name, model_type: model.model_type, base_model: model.base_model, version_name: '' } };
}
