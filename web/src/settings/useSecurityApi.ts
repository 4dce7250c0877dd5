// The security calls bound to the app's client.
import { api } from '../app/services';
import { securityApi } from './api';

export const security = securityApi(api);
