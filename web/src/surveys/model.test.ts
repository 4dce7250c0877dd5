import { describe, expect, it } from 'vitest';
import {
  barPercent,
  checkAnswers,
  draftToDef,
  emptyAnswers,
  isProblem,
  newQuestion,
  newSurvey,
  setRating,
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

  it('sizes bars against the largest count', () => {
    expect(barPercent(2, [2, 1, 0])).toBe(100);
    expect(barPercent(1, [2, 1, 0])).toBe(50);
    expect(barPercent(0, [0, 0])).toBe(0);
  });
});
