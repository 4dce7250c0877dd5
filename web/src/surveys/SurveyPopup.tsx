// Once per signed-in page load, asks `app/questionnaire_survey` whether a
// survey is open for this account; if so, shows it in a dialog. "Later"
// closes it for this page load (the server offers it again next time until
// it is answered); sending checks the answers first, then the server's codes.
import { useEffect, useRef, useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import { showToast } from '../app/toast';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { appStore, useAtomValue } from '../state/jotai';
import { useErrorText } from '../tavern/useErrorText';
import { checkAnswers, emptyAnswers, toSubmit } from './model';
import type { AnswerProblem, Answers, SurveyView } from './model';
import { surveysApi } from './services';
import { SurveyForm } from './SurveyForm';
import './surveys.css';

export function SurveyPopup() {
  const t = useT();
  const errorText = useErrorText();
  const loggedIn = useAtomValue(loggedInAtom);
  const asked = useRef(false);
  const [survey, setSurvey] = useState<SurveyView | null>(null);
  const [answers, setAnswers] = useState<Answers>({});
  const [problems, setProblems] = useState<Record<string, AnswerProblem>>({});
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!loggedIn || asked.current) return;
    asked.current = true;
    surveysApi
      .openForMe()
      .then((r) => {
        if (r.survey) {
          setSurvey(r.survey);
          setAnswers(emptyAnswers(r.survey));
        }
      })
      // A profile still incomplete, or offline: nothing to show.
      .catch(() => undefined);
  }, [loggedIn]);

  if (survey === null) return null;

  async function send(s: SurveyView) {
    const found = checkAnswers(s, answers);
    setProblems(found);
    setError(null);
    if (Object.keys(found).length > 0) return;
    setSending(true);
    try {
      await surveysApi.submit(toSubmit(s, answers));
      setSurvey(null);
      showToast(appStore, t('surveys.dialog.thanks'));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setSending(false);
    }
  }

  return (
    <Dialog title={survey.title} closeLabel={t('surveys.dialog.close')} onClose={() => setSurvey(null)} className="survey-dialog">
      <div data-testid="survey-dialog">
        <SurveyForm survey={survey} answers={answers} problems={problems} onChange={setAnswers} />
        {error !== null && (
          <p className="sq-error" role="alert">
            {error}
          </p>
        )}
        <div className="survey-dialog__buttons">
          <button type="button" className="button" onClick={() => setSurvey(null)}>
            {t('surveys.dialog.later')}
          </button>
          <button type="button" className="button button--primary" disabled={sending} onClick={() => void send(survey)}>
            {sending ? t('surveys.dialog.sending') : t('surveys.dialog.send')}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
