// Questionnaires (issue 22 part 4): the wire types of `app/questionnaire_survey`
// and the operators' `admin/survey/*`, and two pure form models:
// - the answer form a user fills (`emptyAnswers`, `toggleChoice`, `checkAnswers`,
//   `toSubmit`), with the server's rules (required, choice bounds, rating 1-5,
//   text limits) checked before sending;
// - the survey builder operators use (`newQuestion`, `draftToDef`), which turns
//   one-option-per-line text into options with stable ids and says what is wrong;
//   `surveyToDraft` opens an existing survey in it, and `draftToDef` then keeps
//   the ids of its questions and options so the answers given so far still count.

export type QuestionKind = 'single' | 'multiple' | 'rating' | 'text';
export type Audience = 'all' | 'free' | 'members';

export interface Choice {
  id: string;
  label: string;
}

export interface Question {
  id: string;
  kind: QuestionKind;
  title: string;
  required: boolean;
  options: Choice[];
  min_choices: number;
  max_choices: number;
  max_chars: number;
}

export interface SurveyDef {
  title: string;
  description: string;
  questions: Question[];
  audience: Audience;
  opens_at: number | null;
  closes_at: number | null;
}

export interface SurveyView extends SurveyDef {
  id: string;
  closed: boolean;
  created_at: number;
  updated_at: number;
  responses: number;
}

export interface OptionCount {
  id: string;
  label: string;
  count: number;
}

export interface QuestionResult {
  id: string;
  kind: QuestionKind;
  title: string;
  answered: number;
  options: OptionCount[];
  rating_counts: number[];
  rating_average: number | null;
  texts: string[];
}

export interface SurveyResults {
  survey_id: string;
  title: string;
  responses: number;
  questions: QuestionResult[];
}

/** The server's limits (protocol/src/survey/question.rs). */
export const DEFAULT_TEXT_CHARS = 500;
export const MAX_TEXT_CHARS = 2000;
export const MAX_QUESTIONS = 30;
export const MAX_OPTIONS = 20;
export const MAX_TITLE_CHARS = 120;

// ---- The answer form ------------------------------------------------------

/** One question's answer while the form is filled. */
export interface AnswerDraft {
  choices: string[];
  rating: number | null;
  text: string;
}

export type Answers = Record<string, AnswerDraft>;

/** Why a question's answer cannot be sent (i18n keys). */
export type AnswerProblem = 'surveys.form.required' | 'surveys.form.tooMany' | 'surveys.form.tooFew' | 'surveys.form.tooLong';

export function emptyAnswers(survey: SurveyDef): Answers {
  const out: Answers = {};
  for (const q of survey.questions) out[q.id] = { choices: [], rating: null, text: '' };
  return out;
}

export function textLimit(q: Question): number {
  return q.max_chars > 0 ? q.max_chars : DEFAULT_TEXT_CHARS;
}

/** `[min, max]` options a choice question takes. */
export function choiceBounds(q: Question): [number, number] {
  if (q.kind !== 'multiple') return [1, 1];
  return [Math.max(1, q.min_choices), q.max_choices > 0 ? q.max_choices : q.options.length];
}

/** Picks an option: a single choice replaces, a multiple choice toggles. */
export function toggleChoice(answers: Answers, q: Question, optionId: string): Answers {
  const current = answers[q.id] ?? { choices: [], rating: null, text: '' };
  let choices: string[];
  if (q.kind === 'single') choices = [optionId];
  else if (current.choices.includes(optionId)) choices = current.choices.filter((c) => c !== optionId);
  else choices = [...current.choices, optionId];
  return { ...answers, [q.id]: { ...current, choices } };
}

export function setRating(answers: Answers, q: Question, rating: number): Answers {
  const current = answers[q.id] ?? { choices: [], rating: null, text: '' };
  return { ...answers, [q.id]: { ...current, rating: Math.min(5, Math.max(1, Math.round(rating))) } };
}

export function setText(answers: Answers, q: Question, text: string): Answers {
  const current = answers[q.id] ?? { choices: [], rating: null, text: '' };
  return { ...answers, [q.id]: { ...current, text } };
}

function isEmpty(q: Question, a: AnswerDraft | undefined): boolean {
  if (a === undefined) return true;
  switch (q.kind) {
    case 'single':
    case 'multiple':
      return a.choices.length === 0;
    case 'rating':
      return a.rating === null;
    case 'text':
      return a.text.trim() === '';
  }
}

/** Every question's problem, by question id; empty when the form can be sent. */
export function checkAnswers(survey: SurveyDef, answers: Answers): Record<string, AnswerProblem> {
  const problems: Record<string, AnswerProblem> = {};
  for (const q of survey.questions) {
    const a = answers[q.id];
    if (isEmpty(q, a) || a === undefined) {
      if (q.required) problems[q.id] = 'surveys.form.required';
      continue;
    }
    if (q.kind === 'single' || q.kind === 'multiple') {
      const [min, max] = choiceBounds(q);
      if (a.choices.length > max) problems[q.id] = 'surveys.form.tooMany';
      else if (a.choices.length < min) problems[q.id] = 'surveys.form.tooFew';
    } else if (q.kind === 'text' && [...a.text.trim()].length > textLimit(q)) {
      problems[q.id] = 'surveys.form.tooLong';
    }
  }
  return problems;
}

export interface SubmitAnswer {
  question_id: string;
  choices?: string[];
  rating?: number;
  text?: string;
}

/** The `questionnaire_survey_submit` body: answered questions only, each with its kind's field. */
export function toSubmit(survey: SurveyView, answers: Answers): { survey_id: string; answers: SubmitAnswer[] } {
  const out: SubmitAnswer[] = [];
  for (const q of survey.questions) {
    const a = answers[q.id];
    if (a === undefined || isEmpty(q, a)) continue;
    if (q.kind === 'rating' && a.rating !== null) out.push({ question_id: q.id, rating: a.rating });
    else if (q.kind === 'text') out.push({ question_id: q.id, text: a.text.trim() });
    else if (q.kind === 'single' || q.kind === 'multiple') out.push({ question_id: q.id, choices: a.choices });
  }
  return { survey_id: survey.id, answers: out };
}

// ---- The builder ----------------------------------------------------------

/** The stored question a draft question was opened from (editing a survey). */
export interface QuestionOrigin {
  id: string;
  kind: QuestionKind;
  options: Choice[];
  minChoices: number;
}

/** A question as the builder edits it: options as lines of text. */
export interface QuestionDraft {
  /** The stored question it edits (null: a new question). */
  origin: QuestionOrigin | null;
  kind: QuestionKind;
  title: string;
  required: boolean;
  /** One option per line (choice questions). */
  optionsText: string;
  /** Multiple choice: most options (0: all). */
  maxChoices: number;
  /** Text: most characters (0: the default). */
  maxChars: number;
}

export interface SurveyDraft {
  title: string;
  description: string;
  audience: Audience;
  /** `datetime-local` values ('' for none), read in the browser's time zone. */
  opensAt: string;
  closesAt: string;
  questions: QuestionDraft[];
  /**
   * Appended to the ids of questions and options new in this draft: '' for a
   * new survey; for an edited one, taken from its version (`updated_at`) so an
   * id removed by an earlier edit is never given again to a new question,
   * whose count would then include the old answers.
   */
  idSuffix: string;
}

export function newQuestion(kind: QuestionKind): QuestionDraft {
  return { origin: null, kind, title: '', required: kind !== 'text', optionsText: '', maxChoices: 0, maxChars: 0 };
}

/** A `datetime-local` value (the browser's time zone) of ms since the epoch; '' for none. */
export function localInput(ms: number | null): string {
  if (ms === null) return '';
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** An existing survey opened in the builder (its questions remember their ids). */
export function surveyToDraft(s: SurveyDef & { updated_at: number }): SurveyDraft {
  return {
    idSuffix: `-${Math.max(0, Math.floor(s.updated_at)).toString(36)}`,
    title: s.title,
    description: s.description,
    audience: s.audience,
    opensAt: localInput(s.opens_at),
    closesAt: localInput(s.closes_at),
    questions: s.questions.map((q) => ({
      origin: { id: q.id, kind: q.kind, options: q.options, minChoices: q.min_choices },
      kind: q.kind,
      title: q.title,
      required: q.required,
      optionsText: q.options.map((o) => o.label).join('\n'),
      maxChoices: q.max_choices,
      maxChars: q.max_chars,
    })),
  };
}

/** The first `${prefix}N${suffix}` (N from 1) not in `taken`; adds it to `taken`. */
function freshId(prefix: string, suffix: string, taken: Set<string>): string {
  let n = 1;
  while (taken.has(`${prefix}${n}${suffix}`)) n += 1;
  const id = `${prefix}${n}${suffix}`;
  taken.add(id);
  return id;
}

/**
 * Options with ids for `labels`: a label the stored question had keeps its
 * option's id (case aside, so reordering keeps counts); a changed label in
 * the place of a stored option whose label is gone keeps that option's id (a
 * renamed option); any other label is a new option with an unused id.
 */
function optionsWithIds(labels: string[], stored: Choice[], suffix: string): Choice[] {
  const ids: (string | null)[] = labels.map(() => null);
  const used = new Set<string>();
  labels.forEach((label, i) => {
    const same = stored.find((o) => !used.has(o.id) && o.label.toLowerCase() === label.toLowerCase());
    if (same) {
      ids[i] = same.id;
      used.add(same.id);
    }
  });
  labels.forEach((_label, i) => {
    const there = stored[i];
    if (ids[i] !== null || there === undefined || used.has(there.id)) return;
    if (labels.some((l) => l.toLowerCase() === there.label.toLowerCase())) return;
    ids[i] = there.id;
    used.add(there.id);
  });
  const taken = new Set([...stored.map((o) => o.id), ...used]);
  return labels.map((label, i) => ({ id: ids[i] ?? freshId('o', suffix, taken), label }));
}

export function newSurvey(): SurveyDraft {
  return { title: '', description: '', audience: 'all', opensAt: '', closesAt: '', questions: [newQuestion('single')], idSuffix: '' };
}

/** What is wrong with a draft (i18n key and the 1-based question it is about). */
export interface DraftProblem {
  key:
    | 'surveys.build.needTitle'
    | 'surveys.build.needQuestion'
    | 'surveys.build.needQuestionTitle'
    | 'surveys.build.needOptions'
    | 'surveys.build.tooManyOptions'
    | 'surveys.build.duplicateOption'
    | 'surveys.build.badMaxChoices'
    | 'surveys.build.badMaxChars'
    | 'surveys.build.badDates';
  question?: number;
}

function optionLines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

function dateMs(local: string): number | null {
  if (local.trim() === '') return null;
  const ms = new Date(local).getTime();
  return Number.isNaN(ms) ? null : ms;
}

/**
 * The definition to send, or the first problem. New questions get ids `q1`,
 * `q2`... and options `o1`, `o2`... not used in the draft; a question opened
 * from a stored survey keeps its id (and its options theirs) unless its kind
 * changed, so the answers given so far are still counted under it.
 */
export function draftToDef(d: SurveyDraft): SurveyDef | DraftProblem {
  const title = d.title.trim();
  if (title === '' || [...title].length > MAX_TITLE_CHARS) return { key: 'surveys.build.needTitle' };
  if (d.questions.length === 0 || d.questions.length > MAX_QUESTIONS) return { key: 'surveys.build.needQuestion' };
  const opens = dateMs(d.opensAt);
  const closes = dateMs(d.closesAt);
  if (opens !== null && closes !== null && closes <= opens) return { key: 'surveys.build.badDates' };
  const questions: Question[] = [];
  const keep = (q: QuestionDraft): QuestionOrigin | null => (q.origin !== null && q.origin.kind === q.kind ? q.origin : null);
  const takenQ = new Set(d.questions.flatMap((q) => (q.origin ? [q.origin.id] : [])));
  for (const [i, q] of d.questions.entries()) {
    const n = i + 1;
    if (q.title.trim() === '') return { key: 'surveys.build.needQuestionTitle', question: n };
    const choice = q.kind === 'single' || q.kind === 'multiple';
    const labels = choice ? optionLines(q.optionsText) : [];
    if (choice && labels.length < 2) return { key: 'surveys.build.needOptions', question: n };
    if (labels.length > MAX_OPTIONS) return { key: 'surveys.build.tooManyOptions', question: n };
    if (new Set(labels.map((l) => l.toLowerCase())).size !== labels.length) return { key: 'surveys.build.duplicateOption', question: n };
    const maxChoices = q.kind === 'multiple' ? Math.max(0, Math.floor(q.maxChoices)) : 0;
    if (maxChoices > labels.length) return { key: 'surveys.build.badMaxChoices', question: n };
    const maxChars = q.kind === 'text' ? Math.max(0, Math.floor(q.maxChars)) : 0;
    if (maxChars > MAX_TEXT_CHARS) return { key: 'surveys.build.badMaxChars', question: n };
    const origin = keep(q);
    const options = optionsWithIds(labels, origin?.options ?? [], d.idSuffix);
    questions.push({
      id: origin?.id ?? freshId('q', d.idSuffix, takenQ),
      kind: q.kind,
      title: q.title.trim(),
      required: q.required,
      options,
      min_choices: q.kind === 'multiple' && origin !== null ? Math.min(origin.minChoices, maxChoices > 0 ? maxChoices : labels.length) : 0,
      max_choices: maxChoices,
      max_chars: maxChars,
    });
  }
  return { title, description: d.description.trim(), audience: d.audience, opens_at: opens, closes_at: closes, questions };
}

export function isProblem(v: SurveyDef | DraftProblem): v is DraftProblem {
  return 'key' in v;
}

/** A bar's width in percent of the largest count (0 when nothing was counted). */
export function barPercent(count: number, counts: number[]): number {
  const max = Math.max(0, ...counts);
  return max === 0 ? 0 : Math.round((count / max) * 100);
}
