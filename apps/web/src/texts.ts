// Every text the pages show, by what it says and what values it takes; the words are in the
// language files (libs/shared/locales/<code>.json, "pages"), one per language, which the gateway
// puts into each page in the language it chose for the request (the switch's cookie, else
// Accept-Language), English under every key a language leaves out. Error messages are keyed by
// the API's codes (docs/errors.md). Texts are i18next's: `{{value}}` placeholders, `_one`/`_other`
// plurals by the language's own rules.
import i18next, { type TOptions } from 'i18next';

/** What the gateway embeds in each page (`<script type="application/json" id="acct-texts">`). */
export interface PageTexts {
  lng: string;
  languages: { code: string; name: string }[];
  pages: Record<string, unknown>;
}

type Translate = (key: string, values?: TOptions) => string;

/** Every text of the pages, spoken by `t` (one language's). */
export function textsIn(t: Translate) {
  /** The three words of a question before what cannot be undone. */
  const confirmation = (key: string, values?: TOptions) => ({ says: t(`${key}.says`, values), confirm: t(`${key}.confirm`, values), cancel: t(`${key}.cancel`, values) });
  /** A wait as a person says it: "about 15 minutes", "about 2 hours", "45 seconds". */
  const waitInWords = (seconds: number): string => {
    const s = Math.max(1, Math.ceil(seconds));
    if (s < 90) return t('wait.seconds', { count: s });
    const minutes = Math.round(s / 60);
    if (minutes < 90) return t('wait.minutes', { count: minutes });
    return t('wait.hours', { count: Math.round(s / 3600) });
  };
  return {
    waitInWords,
    product: t('product'),
    reveal: {
      show: t('reveal.show'),
      hide: t('reveal.hide'),
      showPassword: t('reveal.showPassword'),
      hidePassword: t('reveal.hidePassword'),
    },
    passwordRules: {
      length: t('passwordRules.length'),
      notCommon: t('passwordRules.notCommon'),
      met: t('passwordRules.met'),
      unmet: t('passwordRules.unmet'),
    },
    signIn: {
      title: t('signIn.title'),
      adminTitle: t('signIn.adminTitle'),
      email: t('signIn.email'),
      password: t('signIn.password'),
      submit: t('signIn.submit'),
      working: t('signIn.working'),
      forgot: t('signIn.forgot'),
      noAccount: t('signIn.noAccount'),
      register: t('signIn.register'),
      signedInAdmin: t('signIn.signedInAdmin'),
      passkey: t('signIn.passkey'),
      withProvider: (name: string) => t('signIn.withProvider', { name }),
      or: t('signIn.or'),
      resendVerification: t('signIn.resendVerification'),
      verificationSent: t('signIn.verificationSent'),
      resetWaiting: t('signIn.resetWaiting'),
    },
    appSignIn: {
      title: (app: string) => t('appSignIn.title', { app }),
      signInTo: (app: string) => t('appSignIn.signInTo', { app }),
      working: t('appSignIn.working'),
      signInAgain: (app: string) => t('appSignIn.signInAgain', { app }),
      consentTitle: (app: string) => t('appSignIn.consentTitle', { app }),
      consentIntro: (app: string) => t('appSignIn.consentIntro', { app }),
      scopes: {
        openid: t('appSignIn.scopes.openid'),
        profile: t('appSignIn.scopes.profile'),
        email: t('appSignIn.scopes.email'),
        offline_access: t('appSignIn.scopes.offline_access'),
      },
      resource: (name: string, scopes: string[]) => t('appSignIn.resource', { name, scopes: scopes.join(', ') }),
      consentNote: t('appSignIn.consentNote'),
      allow: t('appSignIn.allow'),
      deny: t('appSignIn.deny'),
      endedTitle: t('appSignIn.endedTitle'),
      backToApp: t('appSignIn.backToApp'),
    },
    emailSignIn: {
      choose: t('emailSignIn.choose'),
      title: t('emailSignIn.title'),
      intro: t('emailSignIn.intro'),
      send: t('emailSignIn.send'),
      withPassword: t('emailSignIn.withPassword'),
      checkTitle: t('emailSignIn.checkTitle'),
      sent: (address: string, minutes: number) => t('emailSignIn.sent', { address, minutes }),
      code: t('emailSignIn.code'),
      again: t('emailSignIn.again'),
      expired: t('emailSignIn.expired'),
      otherBrowserTitle: t('emailSignIn.otherBrowserTitle'),
      askHere: t('emailSignIn.askHere'),
    },
    problems: {
      title: t('problems.title'),
      titlePrefix: t('problems.titlePrefix'),
      required: (label: string) => t('problems.required', { label }),
      email: t('problems.email'),
      tooShort: (label: string, n: number) => t('problems.tooShort', { label, n }),
      tooLong: (label: string, n: number) => t('problems.tooLong', { label, n }),
      pattern: (label: string) => t('problems.pattern', { label }),
    },
    secondStep: {
      title: t('secondStep.title'),
      appCode: t('secondStep.appCode'),
      mailedCode: t('secondStep.mailedCode'),
      mailedHint: t('secondStep.mailedHint'),
      recoveryCode: t('secondStep.recoveryCode'),
      useRecovery: t('secondStep.useRecovery'),
      usePasskey: t('secondStep.usePasskey'),
      useApp: t('secondStep.useApp'),
      lostFactors: t('secondStep.lostFactors'),
      recoveryMailed: t('secondStep.recoveryMailed'),
      submit: t('secondStep.submit'),
      expired: t('secondStep.expired'),
      trustBrowser: (days: number) => t('secondStep.trustBrowser', { days }),
    },
    register: {
      title: t('register.title'),
      name: t('register.name'),
      nameHint: t('register.nameHint'),
      email: t('register.email'),
      password: t('register.password'),
      passwordHint: t('register.passwordHint'),
      submit: t('register.submit'),
      done: t('register.done'),
      doneVerify: t('register.doneVerify'),
      signInNow: t('register.signInNow'),
      haveAccount: t('register.haveAccount'),
    },
    firstAdmin: {
      title: t('firstAdmin.title'),
      intro: t('firstAdmin.intro'),
      submit: t('firstAdmin.submit'),
      done: t('firstAdmin.done'),
    },
    forgot: {
      title: t('forgot.title'),
      intro: t('forgot.intro'),
      email: t('forgot.email'),
      submit: t('forgot.submit'),
      sent: t('forgot.sent'),
      back: t('forgot.back'),
    },
    reset: {
      title: t('reset.title'),
      password: t('reset.password'),
      confirm: t('reset.confirm'),
      mismatch: t('reset.mismatch'),
      submit: t('reset.submit'),
      done: t('reset.done'),
      missingToken: t('reset.missingToken'),
      signIn: t('reset.signIn'),
      again: t('reset.again'),
    },
    emailLink: {
      verify: {
        title: t('emailLink.verify.title'),
        intro: t('emailLink.verify.intro'),
        submit: t('emailLink.verify.submit'),
        done: t('emailLink.verify.done'),
      },
      confirm: {
        title: t('emailLink.confirm.title'),
        intro: t('emailLink.confirm.intro'),
        submit: t('emailLink.confirm.submit'),
        done: t('emailLink.confirm.done'),
      },
      undo: {
        title: t('emailLink.undo.title'),
        intro: t('emailLink.undo.intro'),
        submit: t('emailLink.undo.submit'),
        done: t('emailLink.undo.done'),
      },
      recover: {
        title: t('emailLink.recover.title'),
        intro: t('emailLink.recover.intro'),
        submit: t('emailLink.recover.submit'),
        done: t('emailLink.recover.done'),
      },
      unknown: t('emailLink.unknown'),
      toAccount: t('emailLink.toAccount'),
    },
    account: {
      title: t('account.title'),
      loading: t('account.loading'),
      profile: t('account.profile'),
      name: t('account.name'),
      email: t('account.email'),
      verified: t('account.verified'),
      notVerified: t('account.notVerified'),
      memberSince: t('account.memberSince'),
      sessions: t('account.sessions'),
      thisDevice: t('account.thisDevice'),
      started: t('account.started'),
      appSession: (app: string, started: string) => t('account.appSession', { app, started }),
      appsTitle: t('account.appsTitle'),
      appsIntro: t('account.appsIntro'),
      appsNone: t('account.appsNone'),
      appRevoke: t('account.appRevoke'),
      appRevokeOf: (app: string) => t('account.appRevokeOf', { app }),
      appRevoked: (app: string) => t('account.appRevoked', { app }),
      appAccess: (app: { sessions: number; lastUsedAt: string | null; allowed: { scopes: string[] } | null }, date: (iso: string) => string) =>
        [
          app.lastUsedAt ? t('account.appLastUsed', { date: date(app.lastUsedAt) }) : t('account.appNotSignedIn'),
          app.allowed ? t('account.appAllowed', { scopes: app.allowed.scopes.filter((s) => s !== 'openid').join(', ') || t('account.appAllowedSignIn') }) : '',
        ]
          .filter(Boolean)
          .join(' · '),
      lastUsed: t('account.lastUsed'),
      endSession: t('account.endSession'),
      endSessionOf: (started: string) => t('account.endSessionOf', { started }),
      signOutOthers: t('account.signOutOthers'),
      signOutOthersConfirm: confirmation('account.signOutOthersConfirm'),
      othersEnded: (n: number) => t('account.othersEnded', { count: n }),
      sessionEnded: t('account.sessionEnded'),
      password: t('account.password'),
      currentPassword: t('account.currentPassword'),
      newPassword: t('account.newPassword'),
      changePassword: t('account.changePassword'),
      passwordChanged: t('account.passwordChanged'),
      trustedBrowsers: t('account.trustedBrowsers'),
      trustedBrowsersIntro: t('account.trustedBrowsersIntro'),
      noTrustedBrowser: t('account.noTrustedBrowser'),
      aBrowser: t('account.aBrowser'),
      trustedUntil: (from: string, until: string) => t('account.trustedUntil', { from, until }),
      forgetBrowser: t('account.forgetBrowser'),
      forgetBrowserOf: (from: string) => t('account.forgetBrowserOf', { from }),
      browserForgotten: t('account.browserForgotten'),
      noPassword: t('account.noPassword'),
      setPassword: t('account.setPassword'),
      passwordOffTitle: t('account.passwordOffTitle'),
      passwordOffIntro: t('account.passwordOffIntro'),
      passwordOff: t('account.passwordOff'),
      passwordOffConfirm: confirmation('account.passwordOffConfirm'),
      passwordRemoved: t('account.passwordRemoved'),
      factors: t('account.factors'),
      app: t('account.app'),
      appOn: (since: string) => t('account.appOn', { since }),
      recoveryPending: (due: string) => t('account.recoveryPending', { due }),
      cancelRecovery: t('account.cancelRecovery'),
      passkeySuspended: t('account.passkeySuspended'),
      appOff: t('account.appOff'),
      appSetUp: t('account.appSetUp'),
      appScan: t('account.appScan'),
      appKey: t('account.appKey'),
      appQr: t('account.appQr'),
      appCode: t('account.appCode'),
      appConfirm: t('account.appConfirm'),
      appOnNow: t('account.appOnNow'),
      appRemove: t('account.appRemove'),
      appRemoveConfirm: confirmation('account.appRemoveConfirm'),
      appRemoved: t('account.appRemoved'),
      identities: t('account.identities'),
      identityLinked: (since: string) => t('account.identityLinked', { since }),
      identityLink: (name: string) => t('account.identityLink', { name }),
      identityUnlink: (name: string) => t('account.identityUnlink', { name }),
      identityUnlinked: t('account.identityUnlinked'),
      identityNowLinked: t('account.identityNowLinked'),
      unlink: t('account.unlink'),
      passkeys: t('account.passkeys'),
      passkeysNone: t('account.passkeysNone'),
      passkeyName: t('account.passkeyName'),
      passkeyNameHint: t('account.passkeyNameHint'),
      passkeyAdd: t('account.passkeyAdd'),
      passkeyAdded: t('account.passkeyAdded'),
      passkeyRemove: (name: string) => t('account.passkeyRemove', { name }),
      passkeyRemoveConfirm: (name: string) => confirmation('account.passkeyRemoveConfirm', { name }),
      passkeyRemoved: t('account.passkeyRemoved'),
      factorUsed: (when: string) => t('account.factorUsed', { when }),
      factorNeverUsed: t('account.factorNeverUsed'),
      remove: t('account.remove'),
      otherFactors: t('account.otherFactors'),
      factorRemove: (label: string) => t('account.factorRemove', { label }),
      factorRemoveConfirm: (label: string) => confirmation('account.factorRemoveConfirm', { label }),
      factorRemoved: t('account.factorRemoved'),
      recovery: t('account.recovery'),
      recoveryLeft: (n: number) => t('account.recoveryLeft', { count: n }),
      recoveryNone: t('account.recoveryNone'),
      recoveryNew: t('account.recoveryNew'),
      recoveryShown: t('account.recoveryShown'),
      recoveryDownload: t('account.recoveryDownload'),
      stepUpTitle: t('account.stepUpTitle'),
      stepUpIntro: t('account.stepUpIntro'),
      stepUpPassword: t('account.stepUpPassword'),
      stepUpSubmit: t('account.stepUpSubmit'),
      cancel: t('account.cancel'),
      activity: t('account.activity'),
      activityNone: t('account.activityNone'),
      activityMore: t('account.activityMore'),
      activityByAdmin: t('account.activityByAdmin'),
      activityFrom: (place: string) => t('account.activityFrom', { place }),
      /** A device as its browser and system: "Chrome on Linux". */
      deviceOn: (browser: string, system: string) => t('account.deviceOn', { browser, system }),
      activityTypes: t('account.activityTypes', { returnObjects: true }) as unknown as Record<string, string>,
      picture: t('account.picture'),
      noPicture: t('account.noPicture'),
      pictureFile: t('account.pictureFile'),
      pictureHint: t('account.pictureHint'),
      pictureTooLarge: t('account.pictureTooLarge'),
      pictureUpload: t('account.pictureUpload'),
      pictureUploaded: t('account.pictureUploaded'),
      pictureRemove: t('account.pictureRemove'),
      pictureRemoved: t('account.pictureRemoved'),
      nameSave: t('account.nameSave'),
      nameSaved: t('account.nameSaved'),
      emailTitle: t('account.emailTitle'),
      emailCurrent: (email: string) => t('account.emailCurrent', { email }),
      newEmail: t('account.newEmail'),
      emailPassword: t('account.emailPassword'),
      emailSubmit: t('account.emailSubmit'),
      emailPending: (email: string) => t('account.emailPending', { email }),
      deleteTitle: t('account.deleteTitle'),
      deleteIntro: t('account.deleteIntro'),
      deletePassword: t('account.deletePassword'),
      deleteSubmit: t('account.deleteSubmit'),
      deleteConfirm: confirmation('account.deleteConfirm'),
      deleted: t('account.deleted'),
      createNew: t('account.createNew'),
      data: t('account.data'),
      exportData: t('account.exportData'),
      signOut: t('account.signOut'),
    },
    admin: {
      title: t('admin.title'),
      loading: t('admin.loading'),
      nav: t('admin.nav'),
      users: t('admin.users'),
      activity: t('admin.activity'),
      admins: t('admin.admins'),
      signOut: t('admin.signOut'),
      search: t('admin.search'),
      searchSubmit: t('admin.searchSubmit'),
      none: t('admin.none'),
      next: t('admin.next'),
      previous: t('admin.previous'),
      name: t('admin.name'),
      email: t('admin.email'),
      status: t('admin.status'),
      created: t('admin.created'),
      verified: t('admin.verified'),
      unverified: t('admin.unverified'),
      disabled: t('admin.disabled'),
      active: t('admin.active'),
      back: t('admin.back'),
      profile: t('admin.profile'),
      disable: t('admin.disable'),
      enable: t('admin.enable'),
      disabledNow: t('admin.disabledNow'),
      enabledNow: t('admin.enabledNow'),
      setPassword: t('admin.setPassword'),
      newPassword: t('admin.newPassword'),
      passwordSet: t('admin.passwordSet'),
      factors: t('admin.factors'),
      factorsSummary: (totp: boolean, passkeys: number, codes: number) =>
        [totp ? t('admin.factorsAppOn') : t('admin.factorsAppOff'), t('admin.passkeyCount', { count: passkeys }), t('admin.recoveryCodesLeft', { count: codes })].join(' · '),
      resetFactors: t('admin.resetFactors'),
      factorsReset: t('admin.factorsReset'),
      sessions: t('admin.sessions'),
      noSessions: t('admin.noSessions'),
      endSession: t('admin.endSession'),
      endSessionOf: (started: string) => t('admin.endSessionOf', { started }),
      endAll: t('admin.endAll'),
      sessionsEnded: t('admin.sessionsEnded'),
      identities: t('admin.identities'),
      noIdentities: t('admin.noIdentities'),
      unlinkOf: (name: string) => t('admin.unlinkOf', { name }),
      unlinked: t('admin.unlinked'),
      userActivity: t('admin.userActivity'),
      deleteUser: t('admin.deleteUser'),
      deleteConfirm: t('admin.deleteConfirm'),
      deleteForGood: t('admin.deleteForGood'),
      deleted: t('admin.deleted'),
      filterType: t('admin.filterType'),
      filterKind: t('admin.filterKind'),
      kindAll: t('admin.kindAll'),
      kindUsers: t('admin.kindUsers'),
      kindAdmins: t('admin.kindAdmins'),
      filter: t('admin.filter'),
      byAdmin: (id: string) => t('admin.byAdmin', { id }),
      account: (kind: string, id: string) => t('admin.account', { kind, id }),
      invite: t('admin.invite'),
      invited: (email: string) => t('admin.invited', { email }),
      inviteName: t('admin.inviteName'),
      inviteEmail: t('admin.inviteEmail'),
      invitePassword: t('admin.invitePassword'),
      inviteSubmit: t('admin.inviteSubmit'),
      filterVerified: t('admin.filterVerified'),
      filterDisabled: t('admin.filterDisabled'),
      any: t('admin.any'),
      onlyVerified: t('admin.onlyVerified'),
      onlyUnverified: t('admin.onlyUnverified'),
      onlyActive: t('admin.onlyActive'),
      onlyDisabled: t('admin.onlyDisabled'),
      /** A factor of the user's list: when it was added and last used, how many codes are left, or that it waits for its first code. */
      factorMeta: (factor: { createdAt: string | null; lastUsedAt: string | null; confirmed: boolean; remaining?: number }, date: (iso: string) => string) =>
        !factor.confirmed
          ? t('admin.factorWaiting')
          : factor.remaining !== undefined
            ? [t('admin.codesLeft', { count: factor.remaining }), factor.createdAt ? t('admin.factorMade', { date: date(factor.createdAt) }) : ''].filter(Boolean).join(' · ')
            : [
                factor.createdAt ? t('admin.factorAdded', { date: date(factor.createdAt) }) : t('admin.factorAddedUnknown'),
                factor.lastUsedAt ? t('admin.factorLastUsed', { date: date(factor.lastUsedAt) }) : t('admin.factorNeverUsed'),
              ].join(' · '),
      releases: t('admin.releases'),
      noReleases: t('admin.noReleases'),
      platform: t('admin.platform'),
      version: t('admin.version'),
      releaseStatus: (withdrawn: boolean, mandatory: boolean) => [withdrawn ? t('admin.releaseWithdrawn') : t('admin.releasePublished'), mandatory ? t('admin.releaseMandatoryTag') : ''].filter(Boolean).join(', '),
      published: t('admin.published'),
      action: t('admin.action'),
      withdraw: t('admin.withdraw'),
      withdrawOf: (platform: string, version: string) => t('admin.withdrawOf', { platform, version }),
      withdrawnNow: (platform: string, version: string) => t('admin.withdrawnNow', { platform, version }),
      publish: t('admin.publish'),
      releaseVersion: t('admin.releaseVersion'),
      releaseUrl: t('admin.releaseUrl'),
      releaseSha256: t('admin.releaseSha256'),
      releaseSha256Hint: t('admin.releaseSha256Hint'),
      releaseNotes: t('admin.releaseNotes'),
      releaseMandatory: t('admin.releaseMandatory'),
      publishSubmit: t('admin.publishSubmit'),
      publishedNow: (platform: string, version: string) => t('admin.publishedNow', { platform, version }),
      apps: t('admin.apps'),
      appsIntro: t('admin.appsIntro'),
      appsOff: t('admin.appsOff'),
      noApps: t('admin.noApps'),
      appName: t('admin.appName'),
      appId: t('admin.appId'),
      appType: t('admin.appType'),
      appTypeOf: (app: { confidential: boolean; native: boolean; firstParty: boolean; kind: string; source: string }) =>
        [
          t(`admin.appTypes.${app.native ? 'native' : app.confidential ? 'confidential' : 'public'}`),
          t(app.firstParty ? 'admin.appTypes.firstParty' : 'admin.appTypes.thirdParty'),
          app.kind === 'admin' ? t('admin.appTypes.forAdmins') : '',
          app.source === 'configuration' ? t('admin.appTypes.fromConfiguration') : '',
        ]
          .filter(Boolean)
          .join(', '),
      appRedirects: t('admin.appRedirects'),
      appSecretRotate: t('admin.appSecretRotate'),
      appSecretRotateOf: (name: string) => t('admin.appSecretRotateOf', { name }),
      appSecretQuestion: (name: string) => t('admin.appSecretQuestion', { name }),
      appDelete: t('admin.appDelete'),
      appDeleteOf: (name: string) => t('admin.appDeleteOf', { name }),
      appDeleteQuestion: (name: string) => t('admin.appDeleteQuestion', { name }),
      appDeleted: (name: string) => t('admin.appDeleted', { name }),
      cancel: t('admin.cancel'),
      appSecretShown: (name: string) => t('admin.appSecretShown', { name }),
      appRegister: t('admin.appRegister'),
      appKind: t('admin.appKind'),
      appKindUsers: t('admin.appKindUsers'),
      appKindAdmins: t('admin.appKindAdmins'),
      appClientType: t('admin.appClientType'),
      appConfidential: t('admin.appConfidential'),
      appPublic: t('admin.appPublic'),
      appNative: t('admin.appNative'),
      appFirstParty: t('admin.appFirstParty'),
      appDeviceCode: t('admin.appDeviceCode'),
      appRefresh: t('admin.appRefresh'),
      appRedirectsField: t('admin.appRedirectsField'),
      appRedirectsHint: t('admin.appRedirectsHint'),
      appLogoutRedirectsField: t('admin.appLogoutRedirectsField'),
      appBackchannelField: t('admin.appBackchannelField'),
      appRegisterSubmit: t('admin.appRegisterSubmit'),
      appRegistered: (name: string) => t('admin.appRegistered', { name }),
      appChange: t('admin.appChange'),
      appChangeOf: (name: string) => t('admin.appChangeOf', { name }),
      appChangeSubmit: t('admin.appChangeSubmit'),
      appChanged: (name: string) => t('admin.appChanged', { name }),
    },
    language: {
      label: t('language.label'),
      change: t('language.change'),
    },
    errors: t('errors', { returnObjects: true }) as unknown as Record<string, string>,
    retryIn: (seconds: number) => t('retryIn', { wait: waitInWords(seconds) }),
    /** Said after `account_disabled` when the deployment names a support contact (SUPPORT_CONTACT). */
    contactSupport: (contact: string) => t('contactSupport', { contact }),
  };
}

export type Texts = ReturnType<typeof textsIn>;

/** An i18next `t` over one language's page texts (English under them, as the gateway merged them). */
export function translator(lng: string, pages: Record<string, unknown>): Translate {
  const instance = i18next.createInstance();
  void instance.init({
    initAsync: false,
    lng,
    resources: { [lng]: { pages } },
    ns: 'pages',
    defaultNS: 'pages',
    nsSeparator: false,
    interpolation: { escapeValue: false },
    showSupportNotice: false,
  } as Parameters<typeof instance.init>[0]);
  // "Enter email": a field's label inside a sentence, where the language writes it in lower case.
  instance.services.formatter?.add('lowerFirst', (value: unknown) => {
    const text = String(value);
    return text.charAt(0).toLowerCase() + text.slice(1);
  });
  return (key, values) => instance.t(key, values) as unknown as string;
}

/** The page's texts as the gateway embedded them; none (the keys themselves) where no page is (the repository's checks read this file). */
export function pageTexts(): PageTexts {
  const page = (globalThis as { document?: { getElementById(id: string): { textContent: string | null } | null } }).document;
  const data = page?.getElementById('acct-texts')?.textContent;
  if (data) return JSON.parse(data) as PageTexts;
  return { lng: 'en', languages: [], pages: {} };
}

const embedded = pageTexts();
export const pageLanguage = embedded.lng;
export const languages = embedded.languages;
export const texts: Texts = textsIn(translator(embedded.lng, embedded.pages));

/** A wait as a person says it, in the page's language. */
export const waitInWords = (seconds: number): string => texts.waitInWords(seconds);

/** The message for an API error: its code's text, the wait when the API named one, and field details. */
export function errorText(error: { code: string; message: string; retryAfter?: number }, words: Texts = texts): string {
  let text = words.errors[error.code] ?? error.message;
  const support = supportContact();
  if (error.code === 'account_disabled' && support) text = `${text} ${words.contactSupport(support)}`;
  return error.retryAfter ? `${text} ${words.retryIn(error.retryAfter)}` : text;
}

/** The deployment's support contact, as the gateway wrote it into the page (SUPPORT_CONTACT); '' without one. */
function supportContact(): string {
  // Through globalThis: this file is also read outside a browser (the repository's checks of every text).
  const page = (globalThis as { document?: { querySelector(selector: string): { content?: string } | null } }).document;
  return page?.querySelector('meta[name="acct:support"]')?.content?.trim() ?? '';
}
