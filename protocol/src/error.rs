//! The one error-code catalogue: every code and message key the server can
//! answer with, its HTTP status and its default English message.
//!
//! Codes 2xxxx are the login family of spec 2 §8; the others are Easel's own
//! and are chosen to read as `HTTP status * 100` so a glance at a code tells
//! the class of failure. Pinned by the tests at the bottom of this file: a
//! change here is a change of the public contract.

use serde::{Deserialize, Serialize};

macro_rules! error_codes {
    ($( $(#[$doc:meta])* $variant:ident = ($code:expr, $key:expr, $http:expr, $msg:expr); )*) => {
        /// A failure the API reports, with its stable code and message key.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $( $(#[$doc])* $variant, )*
        }

        impl ErrorCode {
            /// Every code, for tables and tests.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The numeric code carried in `status.code`.
            pub const fn code(self) -> i32 {
                match self { $(ErrorCode::$variant => $code,)* }
            }

            /// The message key carried in `status.key`, translated by the client.
            pub const fn key(self) -> &'static str {
                match self { $(ErrorCode::$variant => $key,)* }
            }

            /// The HTTP status the response is sent with.
            pub const fn http_status(self) -> u16 {
                match self { $(ErrorCode::$variant => $http,)* }
            }

            /// A default English message for `status.msg`.
            pub const fn default_msg(self) -> &'static str {
                match self { $(ErrorCode::$variant => $msg,)* }
            }
        }
    };
}

error_codes! {
    /// No token, or a token that is unknown, expired or logged out (spec 2 §6: 20000 opens the login dialog).
    NeedLogin = (20000, "NeedLogin", 401, "please log in");
    /// No account has this e-mail.
    AccountNoExistent = (20001, "AccountNoExistent", 404, "account does not exist");
    /// A reset link that expired.
    ResetLinkExpired = (20002, "ResetLinkExpired", 400, "the reset link has expired");
    /// A reset link already used, or one the server never issued (spec 2 §8
    /// shares the key with 20002).
    ResetLinkUsed = (20003, "ResetLinkExpired", 400, "the reset link was already used or is not valid");
    /// The account is disabled (status 2); no token is issued.
    AccountDisabled = (20004, "AccountDisabled", 403, "account is disabled");
    /// Wrong password.
    PasswordError = (20005, "PasswordError", 401, "wrong password");
    /// The action is not available for this account.
    ActNotAvailable = (20010, "actNotAvailable", 403, "not available for this account");
    /// The account must complete its profile (status 3) before this call.
    ProfileIncomplete = (20011, "ProfileIncomplete", 403, "complete your profile first");
    /// Not a well-formed e-mail address.
    InvalidEmail = (20100, "InvalidEmail", 400, "invalid e-mail address");
    /// An account with this e-mail exists.
    EmailRegistered = (20101, "EmailRegistered", 409, "e-mail already registered");
    /// A password shorter than 8 or longer than 128 characters.
    PasswordInvalid = (20102, "PasswordInvalid", 400, "password must be 8 to 128 characters");
    /// A display name that is empty after trimming, too long or has control characters.
    NameInvalid = (20103, "NameInvalid", 400, "name must be 1 to 50 printable characters");
    /// Wrong verification code.
    VerifiCodeError = (20105, "VerifiCodeError", 400, "wrong verification code");
    /// The login type is not one this server offers.
    LoginTypeUnsupported = (20106, "LoginTypeUnsupported", 400, "this login type is not offered");
    /// Mail (issue 21): the server has no SMTP server configured, so a call
    /// that must send mail cannot.
    MailUnavailable = (20110, "MailUnavailable", 503, "this server cannot send e-mail");
    /// A verification code that expired, was used, or took too many wrong attempts.
    VerifyCodeExpired = (20111, "VerifyCodeExpired", 400, "the verification code has expired; ask for a new one");
    /// The address is already verified: there is nothing to verify.
    EmailAlreadyVerified = (20112, "EmailAlreadyVerified", 400, "the e-mail address is already verified");
    /// Malformed request: bad JSON, missing or mistyped field.
    InvalidParams = (40000, "InvalidParams", 400, "invalid parameters");
    /// Generation validation (spec 1 §5): a text tab without a prompt.
    PromptNotEmpty = (40010, "PromptNotEmpty", 400, "the prompt must not be empty");
    /// A free account with more than 3 LoRA models.
    LoRALimit5TipWeb = (40011, "LoRALimit5TipWeb", 403, "free accounts may use at most 3 LoRA models");
    /// Upscale output over 4096 px a side.
    ImageSizeExceedsError = (40012, "ImageSizeExceedsError", 400, "the output image would exceed 4096 px a side");
    /// A tab that needs a base model or artwork and has none.
    PleaseSelectBaseName = (40013, "PleaseSelectBaseName", 400, "please select a base model");
    /// An image tab without its image (the key's spelling is the spec's).
    PleaseUploadImage = (40014, "pleaseUoloadImage", 400, "please upload an image");
    /// Animation, effect or multi-image without an image.
    PleaseSelectImage = (40015, "pleaseSelectImage", 400, "please select an image");
    /// An input image (or mask) that is not an uploaded http(s) or `/files/` URL.
    UploadError = (40016, "uploadError", 400, "the image was not uploaded; please upload it again");
    /// An uploaded video that ffprobe cannot read as a video (spec 2 §8).
    UploadVideoError = (40021, "uploadVideoError", 400, "the file is not a video we can read; please upload another");
    /// Studio: a LoRA made for another base model family than the checkpoint's.
    Studio25 = (40017, "studio25", 400, "a LoRA does not match the checkpoint's base model");
    /// A requested width or height below the model family's minimum.
    ImageSizeTooSmall = (40018, "ImageSizeTooSmall", 400, "the image size is below the minimum for this model");
    /// A requested width or height above the model family's maximum.
    ImageSizeTooLarge = (40019, "ImageSizeTooLarge", 400, "the image size is above the maximum for this model");
    /// A requested aspect ratio outside the model family's range.
    ImageRatioInvalid = (40020, "ImageRatioInvalid", 400, "this aspect ratio is not supported by this model");
    /// Video effect mode without a template (spec 2 §5 pleaseSelectEffect).
    PleaseSelectEffect = (40070, "pleaseSelectEffect", 400, "please select an effect");
    /// The video editor's export of a timeline with no clips.
    PleaseSelectVideo = (40071, "pleaseSelectVideo", 400, "please add a video clip to the timeline");
    /// Audio (spec 2 §7-§8, spec 3 §7 Timbre): an uploaded file that ffmpeg
    /// cannot decode as audio (checked by decoding, not by its extension).
    UploadAudioError = (40022, "uploadAudioError", 400, "the file is not audio we can read; please upload another");
    /// Speech without text.
    AudioTextEmpty = (40080, "audioTextEmpty", 400, "please enter the text to speak");
    /// Speech text over the limit of one call.
    AudioTextTooLong = (40081, "audioTextTooLong", 400, "the text is too long to speak at once");
    /// An audio input (or the audio a call would make) longer than allowed.
    AudioTooLong = (40082, "audioTooLong", 400, "the audio is too long");
    /// A duration outside the allowed range.
    AudioDurationInvalid = (40083, "audioDurationInvalid", 400, "this duration is not allowed");
    /// Sound effects and music without a description.
    AudioPromptEmpty = (40084, "audioPromptEmpty", 400, "please describe the sound you want");
    /// Music and effects: a description over its limit.
    AudioPromptTooLong = (40095, "audioPromptTooLong", 400, "the description is too long");
    /// Music: lyrics over their limit.
    LyricsTooLong = (40096, "lyricsTooLong", 400, "the lyrics are too long");
    /// Music with sung vocals (`vocalSongs`) but no lyrics to sing.
    LyricsEmpty = (40097, "lyricsEmpty", 400, "please write or generate the lyrics to sing");
    /// A voice still training (or whose training failed) used to speak.
    TimbreNotReady = (40085, "timbreNotReady", 409, "this voice is not ready yet");
    /// Voice training without usable samples.
    TimbreSamplesInvalid = (40086, "timbreSamplesInvalid", 400, "add 1 to 5 voice samples of 3 to 60 seconds each");
    /// No face in the picture or video given to lip-sync or face detection.
    NoFaceFound = (40087, "noFaceFound", 400, "no face was found; please use a picture or video with one clear face");
    /// Lip-sync from audio without an audio clip.
    PleaseUploadAudio = (40088, "pleaseUploadAudio", 400, "please upload an audio clip");
    /// Speech did not finish within the call's deadline (`timbre/tts`, 60 s).
    SpeechTimeout = (50381, "speechTimeout", 503, "speaking took too long; please try a shorter text");
    /// The speech engine a voice needs is not installed or not reachable.
    SpeechUnavailable = (50380, "speechUnavailable", 503, "the speech engine is not available");
    /// Models (spec 3 §7 Models, issue 19): a model file that is not safetensors.
    ModelFileInvalid = (40100, "modelFileInvalid", 400, "this is not a .safetensors model file");
    /// A pickle (`.ckpt`, `.pt`, `.bin`) model file: refused, because loading one can run code.
    ModelFilePickle = (40101, "modelFilePickle", 400, "pickle model files (.ckpt, .pt) can run code and are refused; please upload .safetensors");
    /// A safetensors header that is malformed or lies about the file's size.
    ModelHeaderInvalid = (40102, "modelHeaderInvalid", 400, "the model file's header is damaged or does not match the file");
    /// The file's hash is not the one the client declared (a tampered or truncated upload).
    ModelHashMismatch = (40103, "modelHashMismatch", 400, "the model file's hash does not match");
    /// A model file over the operator's size limit.
    ModelFileTooLarge = (40104, "modelFileTooLarge", 413, "the model file is too large");
    /// A model's name, description, tags or trigger words outside their limits.
    ModelFieldInvalid = (40105, "modelFieldInvalid", 400, "a model field is not valid");
    /// The declared model type does not match what the file is.
    ModelTypeMismatch = (40106, "modelTypeMismatch", 400, "the file is not the model type you chose");
    /// A version still used by published works or running tasks.
    ModelVersionInUse = (40107, "modelVersionInUse", 409, "this version is in use and cannot be deleted");
    /// An import URL the operator does not allow (private, loopback, unknown host, too large, too slow).
    ModelImportRefused = (40108, "modelImportRefused", 400, "this address cannot be imported from");
    /// An agency fee outside 0 to the operator's maximum.
    AgencyFeeInvalid = (40109, "agencyFeeInvalid", 400, "the agency fee is not allowed");
    /// A model version that is not ready (still checking its file, or training).
    ModelNotReady = (40110, "modelNotReady", 409, "this model is not ready yet");
    /// Training (issue 19): a dataset without usable images.
    DatasetEmpty = (40120, "datasetEmpty", 400, "add images to the dataset first");
    /// A dataset over its image or caption limits.
    DatasetTooLarge = (40121, "datasetTooLarge", 400, "the dataset has too many images");
    /// Training parameters outside their ranges.
    TrainParamsInvalid = (40122, "trainParamsInvalid", 400, "a training parameter is not valid");
    /// No trainer can run this training (kohya not installed and no remote trainer).
    TrainerUnavailable = (50390, "trainerUnavailable", 503, "no trainer is available for this training");
    /// A member-only video quality (PixVerse 540p, 720p, 1080p; spec 2 §6) asked by a free account.
    VideoQualityMemberOnly = (40370, "videoQualityMemberOnly", 403, "this video quality is for members");
    /// An invite code that does not exist.
    InviteCodeError = (40002, "InviteCodeError", 400, "invalid invite code");
    /// The square (spec 3 §7): a work's title over its limit.
    WorkTitleTooLong = (40040, "WorkTitleTooLong", 400, "the title is too long");
    /// A description, article or comment over its limit.
    WorkTextTooLong = (40041, "WorkTextTooLong", 400, "the text is too long");
    /// A text with control characters, or empty where text is needed.
    WorkTextInvalid = (40042, "WorkTextInvalid", 400, "the text is not valid");
    /// A tag that is too long or has characters other than letters, digits, spaces, '_' and '-'.
    WorkTagInvalid = (40043, "WorkTagInvalid", 400, "a tag is not valid");
    /// More tags than a work may have.
    WorkTooManyTags = (40044, "WorkTooManyTags", 400, "too many tags");
    /// Publishing a task that has not finished, has no outputs, or is published already.
    WorkTaskNotPublishable = (40045, "WorkTaskNotPublishable", 400, "this task cannot be published");
    /// Following oneself.
    FollowSelf = (40046, "FollowSelf", 400, "you cannot follow yourself");
    /// The ornament shop: an operator's ornament that is not valid (the message says which field).
    OrnamentInvalid = (40050, "OrnamentInvalid", 400, "this ornament is not valid");
    /// Wearing an ornament the caller has not bought.
    OrnamentNotOwned = (40350, "OrnamentNotOwned", 403, "buy this ornament first");
    /// No such ornament, or it is not on sale.
    OrnamentNotFound = (40450, "OrnamentNotFound", 404, "ornament not found");
    /// A limited ornament with no stock left.
    OrnamentSoldOut = (40950, "OrnamentSoldOut", 409, "this ornament is sold out");
    /// Logged in, but not allowed to touch this object.
    NoPermission = (40300, "NoPermission", 403, "no permission");
    /// The object does not exist (or is not visible to the caller).
    NotFound = (40400, "NotFound", 404, "not found");
    /// The request conflicts with the present state.
    Conflict = (40900, "Conflict", 409, "conflict with the present state");
    /// Body or frame over the size limit.
    PayloadTooLarge = (41300, "PayloadTooLarge", 413, "payload too large");
    /// The account's available credits do not cover the task.
    CoinsNotEnough = (40301, "CoinsNotEnough", 403, "not enough credits for this task");
    /// A visitor device used its starter images for today.
    VisitorLimit = (42901, "VisitorLimit", 429, "visitors may make only a few images a day; log in for more");
    /// A prompt polish is already running for this user (spec 1 §8 70006).
    PromptPolishRunning = (70006, "taskPromptGenerateExecuting", 409, "a prompt is already being polished");
    /// The per-user prompt polish limit is reached (spec 1 §8 70017).
    PromptPolishLimit = (70017, "taskPromptGenerateLimit", 429, "prompt polish limit reached; try again later");
    /// The text breaks a content rule (spec 1 §8 70020).
    PromptViolatesRules = (70020, "taskPromptGenerateViolate", 400, "this text violates the content rules");
    /// A reply is already being written in this chat session: one at a time.
    ChatReplyRunning = (40910, "ChatReplyRunning", 409, "a reply is already being written in this chat");
    /// The chat message is empty or too long.
    ChatMessageInvalid = (40030, "ChatMessageInvalid", 400, "a chat message has 1 to 4000 characters");
    /// The character card could not be read (not a V2 card, bad PNG or JSON).
    CharacterCardInvalid = (40031, "CharacterCardInvalid", 400, "this file is not a character card (V2 JSON or PNG)");
    /// The language model is not installed or not reachable.
    LanguageModelUnavailable = (50310, "LanguageModelUnavailable", 503, "the language model is not available");
    /// The product does not exist or is not on sale.
    ProductNotFound = (40460, "ProductNotFound", 404, "this product is not on sale");
    /// The order does not exist (or is another account's).
    OrderNotFound = (40461, "OrderNotFound", 404, "order not found");
    /// The account has no subscription to act on.
    NoSubscription = (40462, "NoSubscription", 404, "you have no subscription");
    /// The chosen plan is not an upgrade of the present one.
    NotAnUpgrade = (40060, "NotAnUpgrade", 400, "this plan is not an upgrade of your present plan");
    /// A webhook whose signature is missing, wrong or too old: nothing was changed.
    WebhookSignatureInvalid = (40061, "WebhookSignatureInvalid", 400, "the webhook signature is not valid");
    /// A plan is already running: upgrade or manage it instead.
    SubscriptionExists = (40960, "SubscriptionExists", 409, "you already have a subscription");
    /// The order cannot be paid in its present state.
    OrderNotPayable = (40961, "OrderNotPayable", 409, "this order can no longer be paid");
    /// Without the unlimited queue, only so many tasks may wait or run at once.
    TaskQueueFull = (42960, "TaskQueueFull", 429, "too many tasks in progress; members have an unlimited queue");
    /// The payment provider is not configured or not reachable.
    PaymentProviderUnavailable = (50360, "PaymentProviderUnavailable", 503, "payments are not available right now");
    /// A text (name, title, description, comment, character text, message) matched a refusing entry of the text filter.
    TextViolatesRules = (40170, "textViolatesRules", 400, "this text violates the content rules");
    /// A task's prompt matched a refusing entry of the text filter (task create).
    TaskPromptViolatesRules = (40171, "taskPromptViolate", 400, "the prompt violates the content rules");
    /// An operator's text-filter entry is not valid (id, term, pattern, language or category).
    TextFilterEntryInvalid = (40172, "textFilterEntryInvalid", 400, "this filter entry is not valid");
    /// The scene named is not one of the filter's scenes.
    TextSceneInvalid = (40173, "textSceneInvalid", 400, "unknown text scene");
    /// Moderation (issue 20): a moderator or operator call by a plain user.
    ModeratorOnly = (40150, "moderatorOnly", 403, "only moderators may do this");
    /// A moderator acting on an operator, another moderator, or an operator's ban.
    ModerationTargetProtected = (40151, "moderationTargetProtected", 403, "moderators cannot act on operators or other moderators");
    /// Reporting one's own object.
    ReportSelf = (40152, "reportSelf", 400, "you cannot report your own content");
    /// A second open report of the same object by the same user.
    ReportDuplicate = (40153, "reportDuplicate", 409, "you have already reported this");
    /// A report reason not in the fixed list.
    ReportReasonInvalid = (40154, "reportReasonInvalid", 400, "choose a reason from the list");
    /// A report or appeal text too long, with control characters, or missing for reason other.
    ReportTextInvalid = (40155, "reportTextInvalid", 400, "the text is not valid");
    /// A second appeal of the same object's rating.
    AppealDuplicate = (40156, "appealDuplicate", 409, "you have already appealed this rating");
    /// Appeals past the daily limit.
    AppealLimit = (40157, "appealLimit", 429, "no appeals left today");
    /// An appeal of an object that is not rated NSFW.
    AppealNotFlagged = (40158, "appealNotFlagged", 400, "this is not rated NSFW");
    /// A ban duration out of range.
    BanDurationInvalid = (40159, "banDurationInvalid", 400, "the ban duration is not valid");
    /// A moderator action without a reason.
    ModerationReasonRequired = (40160, "moderationReasonRequired", 400, "give a reason");
    /// An obj_type this call does not take.
    ModerationObjTypeInvalid = (40161, "moderationObjTypeInvalid", 400, "this object type cannot be used here");
    /// The object is already in (or not in) that state.
    ModerationStateConflict = (40162, "moderationStateConflict", 409, "the object is already in that state");
    /// A moderator acting on their own account.
    ModerationSelf = (40163, "moderationSelf", 400, "you cannot do this to yourself");
    /// Phone sign-in (issue 21): not a valid phone number in E.164 form (`+` and the country code).
    PhoneInvalid = (20130, "PhoneInvalid", 400, "please enter a valid phone number with its country code");
    /// A code was sent to this number moments ago, or too many today: wait before asking again.
    SmsTooFrequent = (20131, "SmsTooFrequent", 429, "a code was sent recently; please wait before asking again");
    /// The SMS provider refused or did not answer: no code was sent.
    SmsSendFailed = (20132, "SmsSendFailed", 503, "the code could not be sent; please try again later");
    /// A push token (`msg/token/update`) or popup kind that is not valid.
    PopupParamInvalid = (20133, "PopupParamInvalid", 400, "this value is not valid");
    /// An NSFW viewing mode other than blur, hide or show.
    NsfwModeInvalid = (40180, "nsfwModeInvalid", 400, "choose blur, hide or show");
    /// Rate limit exceeded.
    TooManyRequests = (42900, "TooManyRequests", 429, "too many requests");
    /// Unexpected server fault; details are in the server log only.
    Internal = (50000, "ServerError", 500, "internal server error");
    /// A dependency (store, bus, queue) is unreachable.
    Unavailable = (50300, "ServiceUnavailable", 503, "service temporarily unavailable");
    /// No deletion of this account is waiting: nothing to cancel.
    DeletionNotPending = (20150, "deletionNotPending", 409, "no account deletion is waiting");
    /// The account's data export is still being made (one at a time).
    ExportRunning = (20151, "exportRunning", 409, "an export of your data is already being made");
    /// No finished export to download (none asked, failed, or expired).
    ExportUnavailable = (20152, "exportUnavailable", 404, "no export of your data is ready");
    /// Sessions and two-factor (issue 21): a wrong TOTP or recovery code.
    TwoFactorCodeError = (20140, "twoFactorCodeError", 400, "wrong two-factor code");
    /// Lockout: too many failed attempts from here or on this account; `msg` says when to retry.
    TooManyAttempts = (20141, "tooManyAttempts", 429, "too many attempts, try again later");
    /// The sign-in's second step expired, was used, or failed too often: sign in again.
    TwoFactorChallengeExpired = (20142, "twoFactorChallengeExpired", 400, "the sign-in step has expired, sign in again");
    /// Two-factor is already on (enrol), not enrolled (confirm) or not on (disable).
    TwoFactorState = (20143, "twoFactorState", 409, "two-factor sign-in is not in that state");
    /// Profile links: http(s) addresses only, at most 5, each at most 300 characters.
    ProfileLinkInvalid = (20144, "profileLinkInvalid", 400, "links must be http(s) addresses, at most 5");
    /// A bio over 500 characters or with control characters.
    ProfileBioInvalid = (20145, "profileBioInvalid", 400, "the bio is too long or has control characters");
    /// An avatar that is not a decodable PNG, JPEG or GIF image of at most 8 MiB, or a crop outside it.
    AvatarInvalid = (20146, "avatarInvalid", 400, "the image cannot be used as an avatar");
    /// A language or notification kind the app does not know.
    ProfileSettingInvalid = (20147, "profileSettingInvalid", 400, "unknown language or notification kind");
    /// Third-party sign-in (issue 21): a provider the operator did not enable.
    OidcProviderUnknown = (20120, "OidcProviderUnknown", 400, "this sign-in provider is not enabled");
    /// A sign-in attempt whose state is unknown, expired or already used (a replay).
    OidcStateInvalid = (20121, "OidcStateInvalid", 400, "this sign-in attempt expired or was already used; please start again");
    /// An ID token whose signature, issuer or audience does not verify.
    OidcTokenInvalid = (20122, "OidcTokenInvalid", 401, "the provider's answer could not be verified");
    /// An ID token past its expiry.
    OidcTokenExpired = (20123, "OidcTokenExpired", 401, "the provider's answer has expired; please start again");
    /// An ID token whose nonce is not the one this sign-in attempt sent.
    OidcNonceMismatch = (20124, "OidcNonceMismatch", 401, "the provider's answer belongs to another sign-in attempt");
    /// The provider refused the code, failed, timed out or answered what it should not.
    OidcProviderError = (20125, "OidcProviderError", 503, "the sign-in provider failed; please try again later");
    /// The provider's e-mail is on an account already: sign in to it, then link the provider.
    OidcEmailTaken = (20126, "OidcEmailTaken", 409, "an account with this e-mail exists; sign in to it and link this provider in the settings");
    /// This provider account is linked to another Easel account.
    OidcIdentityTaken = (20127, "OidcIdentityTaken", 409, "this provider account is linked to another account");
    /// Unlinking would leave the account with no way to sign in.
    OidcLastSignIn = (20128, "OidcLastSignIn", 409, "this is the last way to sign in to the account; set a password or link another provider first");
    /// The account has no link to this provider.
    OidcNotLinked = (20129, "OidcNotLinked", 404, "this provider is not linked to the account");
    /// A re-authentication signed in a provider account that is not linked to the caller.
    OidcNotThisAccount = (20134, "OidcNotThisAccount", 403, "sign in with the provider account linked to this account");
    /// A time zone that is not an IANA name (check-in, issue 22).
    CheckinTimeZoneInvalid = (40620, "checkinTimeZoneInvalid", 400, "the time zone is not a known IANA time zone");
    /// A check-in schedule outside its bounds (1 to 31 days, 0 to 100000 credits each).
    CheckinScheduleInvalid = (40621, "checkinScheduleInvalid", 400, "the schedule needs 1 to 31 days of 0 to 100000 credits");
    /// An award with an unknown trigger, an empty or long title, or an amount outside 1 to 100000.
    AwardInvalid = (40622, "awardInvalid", 400, "the award needs a known trigger, a title of 1 to 60 characters and 1 to 100000 credits");
    /// A check-in time zone changed again within 30 days of the last change.
    CheckinTimeZoneChangeTooSoon = (40623, "checkinTimeZoneChangeTooSoon", 429, "the time zone can be changed once every 30 days");
    /// Home composition (issue 22): a link or image address that is neither a same-site path nor an https address.
    HomeLinkInvalid = (40640, "homeLinkInvalid", 400, "use a same-site path or an https address");
    /// A link or image on a host the instance does not allow (`EASEL_HOME_LINK_HOSTS`).
    HomeLinkForeign = (40641, "homeLinkForeign", 400, "links to this host are not allowed");
    /// A slot or feature name that is not 1 to 32 of a-z, 0-9, '-', '_'.
    HomeSlotInvalid = (40642, "homeSlotInvalid", 400, "the slot name is not valid");
    /// A schedule whose end is not after its start.
    HomeScheduleInvalid = (40643, "homeScheduleInvalid", 400, "the end must be after the start");
    /// Targeting or feature switches out of bounds.
    HomeTargetInvalid = (40644, "homeTargetInvalid", 400, "the targeting is not valid");
    /// A title or body missing, too long, or with control characters.
    HomeTextInvalid = (40645, "homeTextInvalid", 400, "the text is missing or too long");
    /// A module with neither elements nor a live query, or out of bounds.
    HomeModuleInvalid = (40646, "homeModuleInvalid", 400, "the module is not valid");
    /// A popup whose kind and fields do not fit.
    HomePopupInvalid = (40647, "homePopupInvalid", 400, "the popup is not valid");
    /// The draft changed since it was read (a stale version): reload it.
    HomeDraftChanged = (40648, "homeDraftChanged", 409, "the draft changed meanwhile; reload it");
    /// Too many banners, modules or popups.
    HomeTooMany = (40649, "homeTooMany", 400, "too many items on the page");
    /// Activities (issue 22): a contribution type other than spec 3 §3's six.
    ActivityTypeInvalid = (40600, "activityTypeInvalid", 400, "this contribution type is not known");
    /// A character or model contributed without an activity (spec 3 §5).
    ActivityRequired = (40601, "activityRequired", 400, "this type can only be contributed to an activity");
    /// The activity does not take this contribution type.
    ActivityTypeNotAllowed = (40602, "activityTypeNotAllowed", 400, "this activity does not take this type of contribution");
    /// No period of the activity is open now (not started, between periods, ended or closed).
    ActivityPeriodClosed = (40603, "activityPeriodClosed", 409, "this activity is not open for contributions now");
    /// One's own object that others cannot see (private, followers-only, a draft, unpublished).
    ActivityObjectNotPublic = (40604, "activityObjectNotPublic", 400, "publish it publicly first");
    /// The object is not of the contribution type named.
    ActivityTypeMismatch = (40605, "activityTypeMismatch", 400, "this is not that type of contribution");
    /// The object is already in this activity (or already marked).
    ActivityDuplicate = (40606, "activityDuplicate", 409, "this is already contributed");
    /// The account has made as many contributions as a period allows.
    ActivityEntryLimit = (40607, "activityEntryLimit", 429, "you have made all the contributions this period allows");
    /// No such activity.
    ActivityNotFound = (40608, "activityNotFound", 404, "activity not found");
    /// An operator's activity definition that is not valid (the message names the field).
    ActivityInvalid = (40609, "activityInvalid", 400, "this activity is not valid");
    /// Voting for one's own contribution.
    ActivityVoteSelf = (40610, "activityVoteSelf", 400, "you cannot vote for your own contribution");
    /// A second vote for the same contribution.
    ActivityVoteDuplicate = (40611, "activityVoteDuplicate", 409, "you have already voted for this");
    /// The activity is judged by operators' picks: no votes.
    ActivityVotingOff = (40612, "activityVotingOff", 400, "this activity is judged by the organisers");
    /// Judging a period that is still open, or by picks without picks.
    ActivityNotJudgeable = (40613, "activityNotJudgeable", 409, "this period cannot be judged now");
    /// Operators' picks that are not contributions of the period (the message says which).
    ActivityPicksInvalid = (40614, "activityPicksInvalid", 400, "the picks are not valid");
    /// Another daily challenge covers that day.
    ActivityDailyTaken = (40615, "activityDailyTaken", 409, "another daily challenge covers that day");
    /// Taking back a vote that was not given.
    ActivityNotVoted = (40616, "activityNotVoted", 409, "you have not voted for this");
    /// Judging again with other picks: the first result stands.
    ActivityAlreadyJudged = (40618, "activityAlreadyJudged", 409, "this period was already judged");
    /// Analytics (issue 22): an ingest body that is not events, or more than 50 of them.
    AnalyticsBatchInvalid = (40680, "analyticsBatchInvalid", 400, "these events are not valid");
    /// Analytics: an ingest body over 64 KiB.
    AnalyticsBatchTooLarge = (40681, "analyticsBatchTooLarge", 413, "too many events in one call");
    /// Analytics: a query's dates are not `YYYY-MM-DD`, are reversed, or span more than a year.
    AnalyticsRangeInvalid = (40682, "analyticsRangeInvalid", 400, "choose a valid date range of at most a year");
    /// Documents to datacards (issue 22 part 7): a document over the size limit (10 MiB).
    RagFileTooLarge = (40700, "ragFileTooLarge", 413, "the document is too large (at most 10 MB)");
    /// Not a text, Markdown, HTML or PDF document (sniffed from its bytes).
    RagFileType = (40701, "ragFileType", 400, "the file is not a text, Markdown, HTML or PDF document");
    /// A PDF that cannot be read (damaged, or not really a PDF).
    RagPdfUnreadable = (40702, "ragPdfUnreadable", 400, "the PDF cannot be read");
    /// A PDF protected by a password.
    RagPdfEncrypted = (40703, "ragPdfEncrypted", 400, "the PDF is protected by a password; upload an unprotected copy");
    /// A document with no text to make datacards of (a scanned PDF, an empty file).
    RagDocumentEmpty = (40704, "ragDocumentEmpty", 400, "the document has no text to read");
    /// The job did not finish within its time (600 s), or the server stopped while it ran.
    RagJobInterrupted = (40705, "ragJobInterrupted", 500, "reading the document was interrupted; please try again");
    /// Too many documents of the account are being read at once.
    RagTooManyJobs = (40706, "ragTooManyJobs", 429, "documents are already being read; wait for them to finish");
    /// A multipart/form-data upload without exactly one `file` field, or not a readable form.
    RagFormInvalid = (40707, "ragFormInvalid", 400, "send the document as one multipart/form-data field named file");
    /// Surveys (issue 22): a survey definition that breaks a rule; `msg` says which.
    SurveyInvalid = (40660, "surveyInvalid", 400, "the survey is not valid");
    /// No such survey (or one this account is not asked).
    SurveyNotFound = (40661, "surveyNotFound", 404, "no such survey");
    /// The survey is closed, not open yet, or past its close date.
    SurveyClosed = (40662, "surveyClosed", 409, "this survey is not taking answers");
    /// This account answered the survey already (one answer per account).
    SurveyAnswered = (40663, "surveyAnswered", 409, "you have answered this survey already");
    /// A required question without an answer; `msg` names it.
    SurveyAnswerMissing = (40664, "surveyAnswerMissing", 400, "please answer every required question");
    /// An answer that does not fit its question (unknown question or option, wrong count, rating outside 1-5).
    SurveyAnswerInvalid = (40665, "surveyAnswerInvalid", 400, "an answer does not fit its question");
    /// A text answer over the question's limit.
    SurveyTextTooLong = (40666, "surveyTextTooLong", 400, "a text answer is too long");
    /// Short links (issue 22): not an http(s) URL, too long, or with a user name or password.
    ShortLinkInvalid = (40670, "shortLinkInvalid", 400, "this is not a link that can be shortened");
    /// A target on a host that is neither this instance's nor allowed by the operator.
    ShortLinkHostRefused = (40671, "shortLinkHostRefused", 400, "links to this host are not allowed");
    /// No such short link.
    ShortLinkNotFound = (40672, "shortLinkNotFound", 404, "no such short link");
    /// The short link has expired.
    ShortLinkExpired = (40673, "shortLinkExpired", 404, "this short link has expired");
}

/// The success code of every envelope.
pub const SUCCESS_CODE: i32 = 10000;

impl ErrorCode {
    /// Looks a code up by its number.
    pub fn from_code(code: i32) -> Option<ErrorCode> {
        Self::ALL.iter().copied().find(|e| e.code() == code)
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i32(self.code())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let code = i32::deserialize(d)?;
        ErrorCode::from_code(code)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown error code {code}")))
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.code(), self.key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::Envelope;

    #[test]
    fn login_codes_match_spec_2_section_8() {
        let table = [
            (20001, "AccountNoExistent"),
            (20004, "AccountDisabled"),
            (20005, "PasswordError"),
            (20002, "ResetLinkExpired"),
            (20003, "ResetLinkExpired"),
            (20010, "actNotAvailable"),
            (20100, "InvalidEmail"),
            (20101, "EmailRegistered"),
            (20105, "VerifiCodeError"),
            (40002, "InviteCodeError"),
            (20000, "NeedLogin"),
        ];
        // The validation keys DESIGN.md's Contracts name, spelled as the spec spells them.
        for key in [
            "PromptNotEmpty",
            "LoRALimit5TipWeb",
            "ImageSizeExceedsError",
            "PleaseSelectBaseName",
            "pleaseUoloadImage",
            "pleaseSelectImage",
            "pleaseSelectEffect",
        ] {
            assert!(
                ErrorCode::ALL.iter().any(|e| e.key() == key),
                "{key} missing"
            );
        }
        for (code, key) in table {
            let e = ErrorCode::from_code(code).unwrap_or_else(|| panic!("{code} missing"));
            assert_eq!(e.key(), key, "code {code}");
        }
    }

    #[test]
    fn codes_and_keys_are_unique() {
        let mut codes: Vec<i32> = ErrorCode::ALL.iter().map(|e| e.code()).collect();
        let mut keys: Vec<&str> = ErrorCode::ALL.iter().map(|e| e.key()).collect();
        codes.sort_unstable();
        keys.sort_unstable();
        let n = codes.len();
        codes.dedup();
        keys.dedup();
        assert_eq!(codes.len(), n);
        // Spec 2 §8 gives 20002 and 20003 one key; every other key is unique.
        assert_eq!(keys.len(), n - 1);
        assert_eq!(
            ErrorCode::ResetLinkUsed.key(),
            ErrorCode::ResetLinkExpired.key()
        );
        assert!(!ErrorCode::ALL.iter().any(|e| e.code() == SUCCESS_CODE));
    }

    #[test]
    fn error_envelope_json_is_pinned() {
        let env = Envelope::<()>::error(ErrorCode::EmailRegistered, None);
        assert_eq!(
            serde_json::to_string(&env).unwrap(),
            r#"{"status":{"code":20101,"msg":"e-mail already registered","key":"EmailRegistered"},"data":null}"#
        );
        let env = Envelope::<()>::error(ErrorCode::PasswordError, Some("nope".into()));
        assert_eq!(
            serde_json::to_value(&env).unwrap(),
            serde_json::json!({"status":{"code":20005,"msg":"nope","key":"PasswordError"},"data":null})
        );
    }

    #[test]
    fn http_statuses_fit_the_contract() {
        for e in ErrorCode::ALL {
            assert!(
                [400, 401, 403, 404, 409, 413, 429, 500, 503].contains(&e.http_status()),
                "{e}"
            );
        }
        assert_eq!(ErrorCode::NeedLogin.http_status(), 401);
        assert_eq!(ErrorCode::TooManyRequests.http_status(), 429);
    }
}
