// The app's task sync, bound to the app's store and API client.
import { api } from '../app/services';
import { appStore } from '../state/jotai';
import { registerTaskPushTarget } from './pushHook';
import { TaskSync } from './sync';

export const taskSync = new TaskSync({ store: appStore, api });
registerTaskPushTarget(taskSync);
