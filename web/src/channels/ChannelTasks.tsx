import { useEffect, useMemo, useState } from 'react';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { tasksAtom } from '../tasks/atoms';
import { taskSync } from '../tasks/service';
import { TaskStatus } from '../tasks/types';
import type { ChannelLog } from './model';
import { channelTaskCards } from './shared';

/** How often the cards re-check whether a finished task has waited too long for its result. */
const TICK_MS = 30_000;

/** Progress cards of the channel's tasks, live from the pushed task frames, until each result is posted. */
export function ChannelTasks({ channelId, log }: { channelId: string; log: ChannelLog }) {
  const t = useT();
  const tasks = useAtomValue(tasksAtom).byId;
  const [now, setNow] = useState(() => Date.now());
  // The task sync merges every pushed task frame, other members' channel tasks included.
  useEffect(() => taskSync.start(), []);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, []);
  const cards = useMemo(() => channelTaskCards(Object.values(tasks), channelId, log, now), [tasks, channelId, log, now]);
  if (cards.length === 0) return null;
  return (
    <ul className="channel-tasks" aria-label={t('channels.generate.running')}>
      {cards.map((task) => {
        const label =
          task.status === TaskStatus.Queued
            ? t('channels.generate.queued')
            : task.status === TaskStatus.Success
              ? t('channels.generate.posting')
              : t('channels.generate.progress', { percent: task.process });
        return (
          <li key={task.id} className="channel-task" data-testid="channel-task" data-task={task.id}>
            <p className="channel-task__prompt">{task.prompt}</p>
            <progress
              className="channel-task__bar"
              max={100}
              value={task.status === TaskStatus.Success ? 100 : task.process}
              aria-label={label}
            />
            <p className="channel-task__status">{label}</p>
          </li>
        );
      })}
    </ul>
  );
}
