// English message table: the server's message keys (protocol/src/error.rs,
// spec 2 §8) and the page's own strings. Other locales fall back to it until
// they have tables of their own.
import { en_agent } from './en.agent';
import { en_channels } from './en.channels';
import { en_generator } from './en.generator';
import { en_mall } from './en.mall';
import { en_promptui } from './en.promptui';
import { en_tasks } from './en.tasks';
import { en_profile } from './en.profile';
import { en_square } from './en.square';
import { en_tavern } from './en.tavern';
import { en_works } from './en.works';
import { en_ornaments } from './en.ornaments';
import { en_video } from './en.video';
import { en_editor } from './en.editor';
import { en_audio } from './en.audio';
import { en_models } from './en.models';
import { en_moderation } from './en.moderation';
import { en_deletion } from './en.deletion';
import { en_textfilter } from './en.textfilter';
import { en_settings } from './en.settings';
import { en_operate } from './en.operate';
import { en_surveys } from './en.surveys';
import { en_accountsInvite } from './en.accountsInvite';
import { en_mail } from './en.mail';
import { en_oidc } from './en.oidc';
import { en_checkin } from './en.checkin';
import { en_home } from './en.home';
import { en_activities } from './en.activities';
import { en_analytics } from './en.analytics';
import { en_rag } from './en.rag';

export const en = {
  ...en_generator,
  ...en_video,
  ...en_editor,
  ...en_tasks,
  ...en_promptui,
  ...en_channels,
  ...en_tavern,
  ...en_agent,
  ...en_square,
  ...en_works,
  ...en_profile,
  ...en_ornaments,
  ...en_mall,
  ...en_audio,
  ...en_models,
  ...en_moderation,
  ...en_deletion,
  ...en_textfilter,
  ...en_settings,
  ...en_operate,
  ...en_accountsInvite,
  ...en_mail,
  ...en_oidc,
  ...en_checkin,
  ...en_home,
  ...en_activities,
  ...en_analytics,
  ...en_rag,
  ...en_surveys,
  // Server message keys.
  NeedLogin: 'Please log in to continue.',
  uploadVideoError: 'This file is not a video we can read. Please upload another.',
  pleaseSelectEffect: 'Please choose an effect.',
  pleaseSelectVideo: 'Please add a video clip to the timeline first.',
  videoQualityMemberOnly: 'This quality is for members. Choose 360p or become a member.',
  AccountNoExistent: 'No account uses this e-mail address.',
  ResetLinkExpired: 'This reset link has expired. Please request a new one.',
  AccountDisabled: 'This account has been disabled.',
  PasswordError: 'Wrong password. Please try again.',
  actNotAvailable: 'This action is not available for your account.',
  ProfileIncomplete: 'Please complete your profile first.',
  InvalidEmail: 'Please enter a valid e-mail address.',
  EmailRegistered: 'An account with this e-mail address already exists.',
  PasswordInvalid: 'The password must be 8 to 128 characters long.',
  NameInvalid: 'The name must be 1 to 50 characters long.',
  VerifiCodeError: 'Wrong verification code.',
  LoginTypeUnsupported: 'This way of logging in is not offered.',
  InvalidParams: 'Some of the information sent is not valid.',
  InviteCodeError: 'This invite code is not valid.',
  PromptNotEmpty: 'Please enter a prompt.',
  LoRALimit5TipWeb: 'Free accounts can use at most 3 LoRA models. Upgrade to use more.',
  ImageSizeExceedsError: 'The result would be larger than 4096 pixels on a side.',
  PleaseSelectBaseName: 'Please select a base model.',
  pleaseUoloadImage: 'Please upload an image.',
  pleaseSelectImage: 'Please select an image.',
  uploadError: 'The file was not uploaded. Please upload it again.',
  studio25: 'A selected LoRA does not fit the base model of this checkpoint. Remove it or turn on LoRA-ignore.',
  ImageSizeTooSmall: 'The image size is below the minimum for this model.',
  ImageSizeTooLarge: 'The image size is above the maximum for this model.',
  ImageRatioInvalid: 'This aspect ratio is not supported by this model.',
  NoPermission: 'You do not have permission to do this.',
  NotFound: 'Not found.',
  Conflict: 'This conflicts with a change made meanwhile. Please reload.',
  PayloadTooLarge: 'This is too large to send.',
  CoinsNotEnough: 'Not enough credits for this task.',
  VisitorLimit: 'Visitors can make only a few images a day. Log in to make more.',
  TooManyRequests: 'Too many attempts. Please wait a moment and try again.',
  ServerError: 'Something went wrong on our side. Please try again.',
  ServiceUnavailable: 'The service is temporarily unavailable. Please try again soon.',
  taskPromptGenerateExecuting: 'A prompt is already being polished. Please wait for it to finish.',
  taskPromptGenerateLimit: 'You have reached the prompt polish limit. Please try again later.',
  taskPromptGenerateViolate: 'This text breaks the content rules. Please change it and try again.',
  textViolatesRules: 'This text breaks the content rules. Please change it and try again.',
  taskPromptViolate: 'This prompt breaks the content rules. Please change it and try again.',
  textFilterEntryInvalid: 'This filter entry is not valid.',
  textSceneInvalid: 'Unknown text scene.',
  ChatReplyRunning: 'A reply is still being written. Wait for it or stop it first.',
  ChatMessageInvalid: 'A message must have between 1 and 4000 characters.',
  CharacterCardInvalid: 'This file is not a character card (V2 JSON, or a PNG with a card inside).',
  LanguageModelUnavailable: 'The language model is not available right now.',
  NetworkError: 'Cannot reach the server. Check your connection and try again.',
  LoginFailed: 'Login failed. Please try again.',

  // Page strings.
  'app.name': 'Easel',
  'app.tagline': 'Create images, video and audio with AI, on your own server.',
  'header.logIn': 'Log in',
  'header.logOut': 'Log out',
  'header.account': 'Account',
  'socket.label': 'Live connection',
  'socket.offline': 'offline',
  'socket.connecting': 'connecting',
  'socket.authenticating': 'authenticating',
  'socket.online': 'online',
  'socket.reconnecting': 'reconnecting',
  'login.titleLogin': 'Log in to Easel',
  'login.titleSignup': 'Create your Easel account',
  'login.titleFinal': 'One last step',
  'login.finalHint': 'Choose the name other people will see.',
  'login.tabLogin': 'Log in',
  'login.tabSignup': 'Sign up',
  'login.email': 'E-mail',
  'login.password': 'Password',
  'login.name': 'Display name',
  'login.submitLogin': 'Log in',
  'login.submitSignup': 'Create account',
  'login.submitFinal': 'Continue',
  'login.pending': 'Please wait…',
  'login.close': 'Close',
  'login.success': 'Welcome, {name}!',
  'home.welcome': 'Welcome back, {name}.',
  'home.visitor': 'Log in or create an account to start creating.',
  'home.eventsTitle': 'Live events',
  'home.eventsEmpty': 'No events yet. Task updates, chat and messages appear here as they arrive.',
  'home.lastSeq': 'Last sequence number: {seq}',
  'home.colType': 'Type',
  'home.colSeq': 'Seq',
  'home.colWhat': 'What',
  'home.colTime': 'Time',
  'frame.10': 'Task update',
  'frame.11': 'Chat stream',
  'frame.12': 'Message',
  'frame.13': 'Notification',
  'frame.14': 'Error',
  'notFound.title': 'Page not found',
  'notFound.home': 'Go to the home page',
} as const;

export type MessageKey = keyof typeof en;
export type MessageTable = Record<MessageKey, string>;
