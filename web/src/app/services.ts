// The composition root: the app's single API client, socket and session,
// wired to the one store. Components import these; tests build their own.
import { ApiClient } from '../api/client';
import { tokenAtom } from '../account/atoms';
import { Session } from '../account/session';
import { navigate } from '../router/router';
import { SocketClient, socketUrl } from '../socket/socket';
import { appStore } from '../state/jotai';
import { channelPushHook, channelResyncHook } from '../channels/pushHook';
import type { PushFrame } from '../socket/frames';
import { mallPushHook, mallResyncHook } from '../mall/pushHook';
import { notificationPushHook, notificationResyncHook } from '../notifications/pushHook';
import { taskPushHook, taskResyncHook } from '../tasks/pushHook';
import { tavernPushHook, tavernResyncHook } from '../tavern/pushHook';
import { trainingPushHook, trainingResyncHook } from '../models/trainPush';
import { awardPushHook } from '../checkin/pushHook';

export const api = new ApiClient({ getToken: () => appStore.get(tokenAtom) });

/** Hands each pushed frame to the features (each picks the kinds it follows). */
function onPush(frame: PushFrame): void {
  taskPushHook(frame);
  channelPushHook(frame);
  tavernPushHook(frame);
  notificationPushHook(frame);
  mallPushHook(frame);
  trainingPushHook(frame);
  awardPushHook(frame);
}

/** A resume lost frames: the tasks and the channels reload over REST. */
function onResyncNeeded(): void {
  taskResyncHook();
  channelResyncHook();
  tavernResyncHook();
  notificationResyncHook();
  mallResyncHook();
  trainingResyncHook();
}

export const socket = new SocketClient({
  store: appStore,
  url: () => socketUrl(),
  onBadToken: () => session.endLocally(),
  onPush,
  onResyncNeeded,
});

export const session = new Session({
  store: appStore,
  api,
  socket,
  navigate: (to) => navigate(appStore, to),
});
