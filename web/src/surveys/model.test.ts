import { describe, expect, it } from 'vitest';
import {
  barPercent,
  checkAnswers,
  draftToDef,
  emptyAnswers,
  isProblem,
  newQuestion,
  newSurvey,
  localInput,
  setRating,
  surveyToDraft,
  setText,
  toggleChoice,
  toSubmit,
  type Question,
  type SurveyView,
} from './model';

function q(id: string, kind: Question['kind'], required: boolean, options: string[] = [], extra: Partial<Question> = {}): Question {
  return { id, kind, title: id, required, options: options.map((o) => ({ id: o, label: o.toUpperCase() })), min_choices: 0, max_choices: 0, max_chars: 0, ...extra };
}

const survey: SurveyView = {
  id: 's1',
  title: 'T',
  description: '',
  audience: 'all',
  opens_at: null,
  closes_at: null,
  closed: false,
  created_at: 0,
  updated_at: 0,
  responses: 0,
  questions: [
    q('fav', 'single', true, ['a', 'b']),
    q('also', 'multiple', false, ['x', 'y', 'z'], { max_choices: 2 }),
    q('stars', 'rating', true),
    q('why', 'text', false, [], { max_chars: 5 }),
  ],
};
const [fav, also, stars, why] = survey.questions as [Question, Question, Question, Question];

describe('the answer form', () => {
  it('needs the required questions and sends only what was answered', () => {
    let a = emptyAnswers(survey);
    expect(checkAnswers(survey, a)).toEqual({ fav: 'surveys.form.required', stars: 'surveys.form.required' });
    a = toggleChoice(a, fav, 'a');
    a = toggleChoice(a, fav, 'b');
    a = setRating(a, stars, 9);
    expect(a.fav?.choices).toEqual(['b']);
    expect(a.stars?.rating).toBe(5);
    expect(checkAnswers(survey, a)).toEqual({});
    expect(toSubmit(survey, a)).toEqual({
      survey_id: 's1',
      answers: [
        { question_id: 'fav', choices: ['b'] },
        { question_id: 'stars', rating: 5 },
      ],
    });
  });

  it('toggles multiple choices within their bounds and limits texts by characters', () => {
    let a = emptyAnswers(survey);
    a = toggleChoice(a, fav, 'a');
    a = setRating(a, stars, 3);
    a = toggleChoice(a, also, 'x');
    a = toggleChoice(a, also, 'y');
    a = toggleChoice(a, also, 'z');
    expect(checkAnswers(survey, a)).toEqual({ also: 'surveys.form.tooMany' });
    a = toggleChoice(a, also, 'y');
    expect(a.also?.choices).toEqual(['x', 'z']);
    a = setText(a, why, ' ééééé ');
    expect(checkAnswers(survey, a)).toEqual({});
    a = setText(a, why, 'éééééé');
    expect(checkAnswers(survey, a)).toEqual({ why: 'surveys.form.tooLong' });
    a = setText(a, why, '  ok ');
    expect(toSubmit(survey, a).answers).toContainEqual({ question_id: 'why', text: 'ok' });
  });
});

describe('the builder', () => {
  it('turns lines into options with ids and says what is wrong', () => {
    const d = newSurvey();
    expect(draftToDef(d)).toEqual({ key: 'surveys.build.needTitle' });
    d.title = ' Feedback ';
    expect(draftToDef(d)).toEqual({ key: 'surveys.build.needQuestionTitle', question: 1 });
    d.questions[0] = { ...newQuestion('single'), title: 'Best tool?', optionsText: 'Images\n\n  Video \n' };
    const rating = { ...newQuestion('rating'), title: 'Rate us' };
    const text = { ...newQuestion('text'), title: 'Anything else?', maxChars: 300 };
    d.questions.push(rating, text);
    const def = draftToDef(d);
    expect(isProblem(def)).toBe(false);
    if (isProblem(def)) return;
    expect(def.title).toBe('Feedback');
    expect(def.questions.map((x) => [x.id, x.kind, x.required])).toEqual([
      ['q1', 'single', true],
      ['q2', 'rating', true],
      ['q3', 'text', false],
    ]);
    expect(def.questions[0]?.options).toEqual([
      { id: 'o1', label: 'Images' },
      { id: 'o2', label: 'Video' },
    ]);
    expect(def.questions[2]?.max_chars).toBe(300);
    expect(def.questions[1]?.options).toEqual([]);

    d.questions[0] = { ...d.questions[0]!, optionsText: 'Images\nimages' };
    expect(draftToDef(d)).toEqual({ key: 'surveys.build.duplicateOption', question: 1 });
    d.questions[0] = { ...newQuestion('multiple'), title: 'Which?', optionsText: 'a\nb', maxChoices: 3 };
    expect(draftToDef(d)).toEqual({ key: 'surveys.build.badMaxChoices', question: 1 });
    d.questions[0] = { ...newQuestion('single'), title: 'One?', optionsText: 'only' };
    expect(draftToDef(d)).toEqual({ key: 'surveys.build.needOptions', question: 1 });
    d.questions[0] = { ...newQuestion('single'), title: 'One?', optionsText: 'a\nb' };
    d.opensAt = '2026-12-02T10:00';
    d.closesAt = '2026-12-01T10:00';
    expect(draftToDef(d)).toEqual({ key: 'surveys.build.badDates' });
  });

  it('opens a stored survey and keeps its question and option ids when saved', () => {
    const stored = { ...survey, updated_at: 36 ** 2, opens_at: new Date('2026-12-01T09:30').getTime() };
    const d = surveyToDraft(stored);
    expect(d.opensAt).toBe('2026-12-01T09:30');
    expect(d.closesAt).toBe('');
    expect(d.questions[0]?.optionsText).toBe('A\nB');
    // Unchanged, it saves as it was.
    const same = draftToDef(d);
    if (isProblem(same)) throw new Error(same.key);
    expect(same.questions).toEqual(survey.questions);
    expect(same.opens_at).toBe(stored.opens_at);

    // Reordered, renamed in place, added; a question removed, one added, one changing kind.
    d.questions[0] = { ...d.questions[0]!, optionsText: 'b\nA\nC' };
    d.questions[1] = { ...d.questions[1]!, optionsText: 'X\nWhy not\nZ\nNew' };
    d.questions[3] = { ...d.questions[3]!, kind: 'rating' };
    d.questions.splice(2, 1);
    d.questions.push({ ...newQuestion('text'), title: 'More?' });
    const def = draftToDef(d);
    if (isProblem(def)) throw new Error(def.key);
    expect(def.questions.map((x) => x.id)).toEqual(['fav', 'also', 'q1-100', 'q2-100']);
    expect(def.questions[0]?.options).toEqual([
      { id: 'b', label: 'b' },
      { id: 'a', label: 'A' },
      { id: 'o1-100', label: 'C' },
    ]);
    expect(def.questions[1]?.options.map((o) => o.id)).toEqual(['x', 'y', 'z', 'o1-100']);
    expect(def.questions[1]?.max_choices).toBe(2);
    // The removed question's id ('stars') and the changed one's ('why') are not given again.
    expect(def.questions.map((x) => x.id)).not.toContain('stars');
    expect(def.questions.map((x) => x.id)).not.toContain('why');
  });

  it('writes datetime-local values in local time', () => {
    expect(localInput(null)).toBe('');
    expect(localInput(new Date('2026-01-02T03:04').getTime())).toBe('2026-01-02T03:04');
  });

  it('sizes bars against the largest count', () => {
    expect(barPercent(2, [2, 1, 0])).toBe(100);
    expect(barPercent(1, [2, 1, 0])).toBe(50);
    expect(barPercent(0, [0, 0])).toBe(0);
  });
});
