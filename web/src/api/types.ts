// Wire types of the REST API, mirroring protocol/src/envelope.rs and
// protocol/src/account.rs. Keep the field names exactly as on the wire.

/** `status` of every response envelope. */
export interface Status {
  code: number;
  msg: string;
  /** The spec's message key where one applies; null on success. */
  key: string | null;
}

/** Every JSON response: `{status, data}`; `status.code` 10000 is success. */
export interface Envelope<T> {
  status: Status;
  data: T;
}

/** Account status (spec 2 §4 "Login account status"). */
export const AccountStatus = {
  Normal: 1,
  Disabled: 2,
  /** Profile incomplete: the login popup's final step asks for a name. */
  Incomplete: 3,
} as const;

/** The account object of login and sign-up answers. */
export interface Account {
  id: string;
  name: string;
  email: string;
  /** Unix seconds. */
  create_at: number;
  status: number;
  device_code: string;
}

/** `data` of login-in, sign-up and complete-profile. */
export interface LoginData {
  account: Account;
  token: string;
}

export interface SignUpRequest {
  email: string;
  password: string;
  name: string;
  /** A user's invite code (spec 2 §3); a wrong one answers 40002. */
  invite_user_code?: string;
}

export interface LoginRequest {
  type: 'email';
  email: string;
  password: string;
}

export interface CompleteProfileRequest {
  name: string;
}

export interface UserSettings {
  insight: boolean;
  /** Generation flow version: 1 old, 2 new (spec 1 §4). */
  task_flow_version: number;
  task_flow_gt: boolean;
}

/** `data` of account info. */
export interface AccountInfo {
  id: string;
  name: string;
  email: string;
  create_at: number;
  status: number;
  settings: UserSettings;
  /** Operator role. */
  admin: boolean;
  /** The image URL of the avatar ornament worn (the ornament shop). */
  ornament?: string | null;
  /** The account proved it receives mail at `email` (issue 21). */
  email_verified?: boolean;
  /** The account's NSFW viewing mode. */
  nsfw_mode?: 'blur' | 'hide' | 'show' | null;
}

/** `data` of payment info (spec 1 §3). */
export interface PaymentInfo {
  activeState: boolean;
  liteActiveState: boolean;
  infiniteQueue: boolean;
  productLevel: number;
}
