import { useEffect, useMemo, useRef, useState } from 'react';
import type { KeyboardEvent } from 'react';
import { useT } from '../i18n/useT';
import { useAtom, useAtomValue } from '../state/jotai';
import type { Clip, Material } from './api';
import { editorMaterialsAtom, editorOpenAtom, editorSelectedAtom } from './atoms';
import { editorSession } from './services';
import {
  clipLength,
  formatSecs,
  MAX_VOLUME,
  MIN_VOLUME,
  moveClip,
  removeClip,
  replaceClip,
  setMusic,
  setMusicStart,
  setMusicVolume,
  timelineProblem,
  totalDuration,
  trimEnd,
  trimStart,
} from './timeline';

function useMaterials(): ReadonlyMap<string, Material> {
  const bin = useAtomValue(editorMaterialsAtom);
  return useMemo(() => new Map((bin.state === 'ready' ? bin.value.items : []).map((m) => [m.material_id, m])), [bin]);
}

/** A seconds field: typed freely, applied on Enter or when it loses focus. */
function SecondsInput({ label, value, max, onCommit }: { label: string; value: number; max: number; onCommit: (v: number) => void }) {
  const [draft, setDraft] = useState<string | null>(null);
  const commit = () => {
    if (draft === null) return;
    const v = Number(draft);
    setDraft(null);
    if (draft.trim() !== '' && Number.isFinite(v)) onCommit(v);
  };
  return (
    <label className="editor-field editor-field--secs">
      <span>{label}</span>
      <input
        type="number"
        inputMode="decimal"
        min={0}
        max={max}
        step={0.1}
        value={draft ?? String(value)}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={commit}
        onKeyDown={(e: KeyboardEvent<HTMLInputElement>) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            commit();
          }
        }}
      />
    </label>
  );
}

/** The selected clip's material, seeking to its trim and looping inside it. */
function Preview({ clip, material }: { clip: Clip; material: Material }) {
  const t = useT();
  const ref = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    const v = ref.current;
    if (v === null) return;
    const seek = () => {
      if (v.currentTime < clip.start || v.currentTime > clip.end) v.currentTime = clip.start;
    };
    const stopAtEnd = () => {
      if (v.currentTime >= clip.end) {
        v.pause();
        v.currentTime = clip.start;
      }
    };
    if (v.readyState >= 1) v.currentTime = clip.start;
    v.addEventListener('loadedmetadata', seek);
    v.addEventListener('timeupdate', stopAtEnd);
    return () => {
      v.removeEventListener('loadedmetadata', seek);
      v.removeEventListener('timeupdate', stopAtEnd);
    };
  }, [clip.start, clip.end, material.url]);
  return (
    <figure className="editor-preview">
      <video
        ref={ref}
        className="editor-preview__video"
        src={material.url}
        poster={material.poster_url ?? undefined}
        controls
        playsInline
        preload="metadata"
        data-testid="clip-preview"
        data-start={clip.start}
        data-end={clip.end}
        aria-label={t('editor.preview')}
      />
      <figcaption className="muted gen-small">{t('editor.previewCaption', { start: formatSecs(clip.start), end: formatSecs(clip.end) })}</figcaption>
    </figure>
  );
}

function ClipRow({ clip, index, count, material, selected }: { clip: Clip; index: number; count: number; material: Material | undefined; selected: boolean }) {
  const t = useT();
  const [, select] = useAtom(editorSelectedAtom);
  const n = index + 1;
  const duration = material?.duration ?? clip.end;
  const trim = (next: Clip, drag = false) => {
    editorSession.edit({ op: 'trimClip', index, start: next.start, end: next.end }, (tl) => replaceClip(tl, index, next), drag);
  };
  const move = (to: number) => {
    editorSession.edit({ op: 'moveClip', from: index, to }, (tl) => moveClip(tl, index, to));
    select(to);
  };
  return (
    <li
      className={selected ? 'editor-clip is-selected' : 'editor-clip'}
      data-testid="clip"
      data-material-id={clip.material_id}
      data-start={clip.start}
      data-end={clip.end}
      aria-current={selected ? 'true' : undefined}
    >
      <button type="button" className="editor-clip__pick" onClick={() => select(index)} aria-label={t('editor.selectClip', { n })}>
        {material?.poster_url ? (
          <img src={material.poster_url} alt="" />
        ) : (
          <span className="editor-material__thumb" aria-hidden="true">
            ▶
          </span>
        )}
        <span>
          <strong>{t('editor.clipN', { n })}</strong> <span className="muted gen-small">{material?.name ?? t('editor.missing')}</span>
        </span>
      </button>
      <div className="editor-clip__trim">
        <SecondsInput label={t('editor.start')} value={clip.start} max={duration} onCommit={(v) => trim(trimStart(clip, v, duration))} />
        <SecondsInput label={t('editor.end')} value={clip.end} max={duration} onCommit={(v) => trim(trimEnd(clip, v, duration))} />
        <input
          type="range"
          className="editor-clip__handle"
          min={0}
          max={duration}
          step={0.1}
          value={clip.start}
          aria-label={t('editor.startHandle', { n })}
          onChange={(e) => trim(trimStart(clip, Number(e.target.value), duration), true)}
        />
        <input
          type="range"
          className="editor-clip__handle"
          min={0}
          max={duration}
          step={0.1}
          value={clip.end}
          aria-label={t('editor.endHandle', { n })}
          onChange={(e) => trim(trimEnd(clip, Number(e.target.value), duration), true)}
        />
        <span className="muted gen-small" data-testid="clip-length">
          {t('editor.length', { len: formatSecs(clipLength(clip)), of: formatSecs(duration) })}
        </span>
      </div>
      <div className="editor-clip__actions">
        <button type="button" className="button" disabled={index === 0} onClick={() => move(index - 1)} aria-label={t('editor.moveLeftN', { n })}>
          ←
        </button>
        <button type="button" className="button" disabled={index >= count - 1} onClick={() => move(index + 1)} aria-label={t('editor.moveRightN', { n })}>
          →
        </button>
        <button
          type="button"
          className="button"
          onClick={() => {
            editorSession.edit({ op: 'removeClip', material_id: clip.material_id, index }, (tl) => removeClip(tl, index));
            select(null);
          }}
          aria-label={t('editor.removeN', { n })}
        >
          {t('editor.remove')}
        </button>
      </div>
    </li>
  );
}

function MusicTrack({ materials }: { materials: ReadonlyMap<string, Material> }) {
  const t = useT();
  const open = useAtomValue(editorOpenAtom);
  const music = open?.timeline.music ?? null;
  const choices = [...materials.values()].filter((m) => m.has_audio);
  const current = music === null ? undefined : materials.get(music.material_id);
  return (
    <section className="editor-music" aria-labelledby="editor-music-title" data-testid="music-track">
      <h3 id="editor-music-title">{t('editor.music')}</h3>
      <div className="editor-row">
        <label className="editor-field">
          <span>{t('editor.musicTrack')}</span>
          <select
            value={music?.material_id ?? ''}
            onChange={(e) => {
              const id = e.target.value === '' ? null : e.target.value;
              editorSession.edit({ op: 'setMusic', material_id: id }, (tl) => setMusic(tl, id));
            }}
          >
            <option value="">{t('editor.noMusic')}</option>
            {music !== null && current === undefined && <option value={music.material_id}>{t('editor.missing')}</option>}
            {choices.map((m) => (
              <option key={m.material_id} value={m.material_id}>
                {m.name || t(`editor.kind.${m.kind}`)}
              </option>
            ))}
          </select>
        </label>
        {music !== null && (
          <>
            <label className="editor-field">
              <span>{t('editor.volume', { pct: Math.round(music.volume * 100) })}</span>
              <input
                type="range"
                min={MIN_VOLUME}
                max={MAX_VOLUME}
                step={0.05}
                value={music.volume}
                onChange={(e) => editorSession.edit({ op: 'musicVolume', volume: Number(e.target.value) }, (tl) => setMusicVolume(tl, Number(e.target.value)), true)}
              />
            </label>
            <SecondsInput
              label={t('editor.musicStart')}
              value={music.start}
              max={current?.duration ?? 0}
              onCommit={(v) => editorSession.edit({ op: 'musicStart', start: v }, (tl) => setMusicStart(tl, v, current?.duration ?? 0))}
            />
          </>
        )}
      </div>
    </section>
  );
}

/** The timeline: the clips in order with their trims, the preview of the selected one, and the music. */
export function TimelinePanel() {
  const t = useT();
  const open = useAtomValue(editorOpenAtom);
  const selected = useAtomValue(editorSelectedAtom);
  const materials = useMaterials();
  const ready = useAtomValue(editorMaterialsAtom).state === 'ready';
  if (open === null) return null;
  const { clips } = open.timeline;
  const total = totalDuration(open.timeline);
  const problem = ready ? timelineProblem(open.timeline, materials) : null;
  const chosen = selected !== null ? clips[selected] : undefined;
  const chosenMaterial = chosen !== undefined ? materials.get(chosen.material_id) : undefined;
  return (
    <section className="editor-timeline panel" aria-labelledby="editor-timeline-title">
      <div className="editor-section-head">
        <h2 id="editor-timeline-title">{t('editor.timeline')}</h2>
        <span className="muted" data-testid="timeline-total" data-seconds={total}>
          {t('editor.total', { total: formatSecs(total), n: clips.length })}
        </span>
      </div>
      {clips.length > 0 && (
        <div className="editor-strip" aria-hidden="true">
          {clips.map((c, i) => (
            <span key={i} className={i === selected ? 'editor-strip__clip is-selected' : 'editor-strip__clip'} style={{ flexGrow: Math.max(clipLength(c), 0.01) }}>
              {i + 1}
            </span>
          ))}
        </div>
      )}
      {problem !== null && (
        <p className="form-error gen-small" data-testid="timeline-problem">
          {t(problem)}
        </p>
      )}
      {chosen !== undefined && chosenMaterial !== undefined && <Preview clip={chosen} material={chosenMaterial} />}
      {clips.length === 0 ? (
        <p className="muted">{t('editor.timelineEmpty')}</p>
      ) : (
        <ol className="editor-clips">
          {clips.map((c, i) => (
            <ClipRow key={`${i}:${c.material_id}`} clip={c} index={i} count={clips.length} material={materials.get(c.material_id)} selected={i === selected} />
          ))}
        </ol>
      )}
      <MusicTrack materials={materials} />
    </section>
  );
}
