import { useState } from 'react';
import type { FormEvent } from 'react';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, navigate } from '../router/router';
import { squareApi } from '../square/actions';
import { workPath } from '../square/route';
import { appStore, useAtomValue } from '../state/jotai';
import { tasksAtom } from '../tasks/atoms';
import { sourceImages } from '../tasks/requests';
import type { Task } from '../tasks/types';
import { useErrorText } from '../tavern/useErrorText';
import { videoOutputs } from '../video/player';
import { checkPublish, checkPublishVideo } from './publish';
import type { PublishField, PublishForm, ProblemKey } from './publish';
import { WorkFields } from './WorkFields';

/** Marks the task as published in the task list (its "Posted" link). */
function markPublished(taskId: string, workId: string): void {
  const s = appStore.get(tasksAtom);
  const task = s.byId[taskId];
  if (task) appStore.set(tasksAtom, { ...s, byId: { ...s.byId, [taskId]: { ...task, pub_artwork_no: workId } } });
}

/**
 * Publishes a finished task's pictures to the square: title, description,
 * tags, visibility, NSFW, hidden parameters and which pictures. A video
 * task posts its video instead (`post/video/add`, the poster as its
 * preview; no picture choice, no hidden parameters). After success the
 * dialog offers "Check it now" (spec 1 §2), going to the new work's page.
 */
export function PublishDialog({ task, onClose }: { task: Task; onClose: () => void }) {
  const t = useT();
  const errorText = useErrorText();
  const locale = useAtomValue(localeAtom);
  // A video task posts its first video (the one the server takes, with its poster).
  const video = videoOutputs(task)[0];
  const images = video ? [] : sourceImages(task);
  const [form, setForm] = useState<PublishForm>({
    title: '',
    description: '',
    tags: '',
    visibility: 'public',
    nsfw: task.nsfw,
    hideParams: false,
    images: images.map((i) => i.url),
  });
  const [problems, setProblems] = useState<Partial<Record<PublishField, ProblemKey>>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [published, setPublished] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const checked = video ? checkPublishVideo(form, task.id) : checkPublish(form, [task.id]);
    if (!checked.ok) {
      setProblems(checked.problems);
      return;
    }
    setProblems({});
    setBusy(true);
    setError(null);
    try {
      const { id } = 'task_id' in checked.request ? await squareApi.publishVideo(checked.request) : await squareApi.publishPicture(checked.request);
      markPublished(task.id, id);
      setPublished(id);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  if (published !== null) {
    // The jump URL of spec 1 §2's success dialog: the new work (home when none came back).
    const jump = localePath(locale, published === '' ? '/' : workPath(published));
    return (
      <Dialog title={t('works.publish.doneTitle')} closeLabel={t('tavern.dialog.close')} onClose={onClose} className="work-dialog" >
        <p data-testid="publish-done">{t('works.publish.doneText')}</p>
        <div className="tavern-dialog__buttons">
          <button type="button" className="button" onClick={onClose}>
            {t('works.publish.later')}
          </button>
          <button
            type="button"
            className="button button--primary"
            onClick={() => {
              onClose();
              navigate(appStore, jump);
            }}
          >
            {t('works.publish.checkNow')}
          </button>
        </div>
      </Dialog>
    );
  }

  function toggleImage(url: string) {
    setForm((f) => ({ ...f, images: f.images.includes(url) ? f.images.filter((u) => u !== url) : images.map((i) => i.url).filter((u) => u === url || f.images.includes(u)) }));
  }

  return (
    <Dialog title={t('works.publish.title')} closeLabel={t('tavern.dialog.close')} onClose={onClose} className="work-dialog">
      <form onSubmit={(e) => void submit(e)} data-testid="publish-form">
        {images.length > 1 && (
          <fieldset className="publish-images">
            <legend>{t('works.publish.pictures')}</legend>
            {images.map((img, i) => (
              <label key={img.url} className={`publish-images__item${form.images.includes(img.url) ? ' publish-images__item--on' : ''}`}>
                <input type="checkbox" checked={form.images.includes(img.url)} onChange={() => toggleImage(img.url)} />
                <img src={img.url} alt={t('works.publish.picture', { index: i + 1 })} />
              </label>
            ))}
          </fieldset>
        )}
        {images.length === 1 && images[0] && <img className="publish-images__single" src={images[0].url} alt="" />}
        {video && (
          <figure className="publish-video" data-testid="publish-video">
            {video.poster ? <img className="publish-images__single" src={video.poster} alt={t('works.publish.videoPoster')} /> : null}
            <figcaption className="muted">{t('works.publish.videoNote')}</figcaption>
          </figure>
        )}
        {problems.images && (
          <p className="sq-error" role="alert">
            {t(problems.images)}
          </p>
        )}
        <WorkFields
          value={form}
          onChange={(v) => setForm((f) => ({ ...f, ...v }))}
          problems={problems}
          showHideParams={!video}
        />
        {error !== null && (
          <p className="sq-error" role="alert">
            {error}
          </p>
        )}
        <div className="tavern-dialog__buttons">
          <button type="button" className="button" onClick={onClose}>
            {t('tavern.form.cancel')}
          </button>
          <button type="submit" className="button button--primary" disabled={busy}>
            {busy ? t('works.publish.posting') : t('works.publish.post')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
