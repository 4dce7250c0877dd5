// One survey's questions as a form: radio buttons, check boxes, a 1-5 rating
// and text areas, with each question's problem under it (model.ts rules).
import { useT } from '../i18n/useT';
import type { MessageKey } from '../i18n/messages';
import { choiceBounds, setRating, setText, textLimit, toggleChoice } from './model';
import type { AnswerProblem, Answers, SurveyView } from './model';

interface Props {
  survey: SurveyView;
  answers: Answers;
  problems: Record<string, AnswerProblem>;
  onChange: (a: Answers) => void;
}

export function SurveyForm({ survey, answers, problems, onChange }: Props) {
  const t = useT();
  return (
    <div className="survey-form">
      {survey.description !== '' && <p className="muted">{survey.description}</p>}
      {survey.questions.map((q, i) => {
        const a = answers[q.id];
        const problem = problems[q.id];
        const name = `survey-${survey.id}-${q.id}`;
        return (
          <fieldset key={q.id} className="survey-q" data-testid={`survey-q-${q.id}`} aria-invalid={problem !== undefined}>
            <legend>
              {i + 1}. {q.title}
              {q.required && <span className="survey-q__req"> · {t('surveys.dialog.required')}</span>}
            </legend>
            {q.kind === 'multiple' && choiceBounds(q)[1] < q.options.length && (
              <p className="muted survey-q__hint">{t('surveys.dialog.chooseUpTo', { n: choiceBounds(q)[1] })}</p>
            )}
            {(q.kind === 'single' || q.kind === 'multiple') &&
              q.options.map((o) => (
                <label key={o.id} className="survey-q__option">
                  <input
                    type={q.kind === 'single' ? 'radio' : 'checkbox'}
                    name={name}
                    checked={a?.choices.includes(o.id) ?? false}
                    onChange={() => onChange(toggleChoice(answers, q, o.id))}
                  />{' '}
                  {o.label}
                </label>
              ))}
            {q.kind === 'rating' && (
              <div className="survey-q__rating" role="radiogroup" aria-label={q.title}>
                {[1, 2, 3, 4, 5].map((n) => (
                  <button
                    key={n}
                    type="button"
                    role="radio"
                    aria-checked={a?.rating === n}
                    aria-label={t('surveys.dialog.ratingLabel', { n })}
                    className={`button survey-star${a?.rating !== null && a?.rating !== undefined && n <= a.rating ? ' survey-star--on' : ''}`}
                    onClick={() => onChange(setRating(answers, q, n))}
                  >
                    {n}
                  </button>
                ))}
              </div>
            )}
            {q.kind === 'text' && (
              <>
                <textarea
                  rows={3}
                  value={a?.text ?? ''}
                  aria-label={q.title}
                  onChange={(e) => onChange(setText(answers, q, e.target.value))}
                />
                <span className="muted survey-q__hint">
                  {t('surveys.dialog.charsLeft', { n: textLimit(q) - [...(a?.text.trim() ?? '')].length })}
                </span>
              </>
            )}
            {problem !== undefined && (
              <p className="sq-error" role="alert">
                {t(problem as MessageKey)}
              </p>
            )}
          </fieldset>
        );
      })}
    </div>
  );
}
