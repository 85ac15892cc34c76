// The mails the web app sends. Plain text, every link written out in full.
import type { Mail } from '../accounts/mail.js';

const SIGNATURE = '\n-- \nRegistry Lookup\nYou receive this because someone entered this address on our site.\n';

export const verificationMail = (to: string, base: string, token: string): Mail => ({
  to,
  subject: 'Verify your Registry Lookup address',
  text:
    `Welcome to Registry Lookup.\n\nVerify your address to open your workspace and get your first API key:\n\n` +
    `${base}/verify?token=${token}\n\nThe link works once, for two days. If you did not sign up, ignore this mail.\n` +
    SIGNATURE,
});

/** Someone signed up with an address that already has an account: tell its owner, not the visitor. */
export const alreadyRegisteredMail = (to: string, base: string): Mail => ({
  to,
  subject: 'Your Registry Lookup account',
  text:
    `Someone tried to sign up with this address, which already has an account.\n\nLog in: ${base}/login\n` +
    `Forgot your password? ${base}/forgot\n\nIf it was not you, nothing has changed.\n` +
    SIGNATURE,
});

export const resetMail = (to: string, base: string, token: string): Mail => ({
  to,
  subject: 'Reset your Registry Lookup password',
  text:
    `Choose a new password here:\n\n${base}/reset?token=${token}\n\nThe link works once, for one hour. Every ` +
    `browser signed in to your account will be signed out. If you did not ask for this, ignore this mail.\n` +
    SIGNATURE,
});

export const invitationMail = (to: string, base: string, token: string, workspace: string, by: string): Mail => ({
  to,
  // The workspace, not the inviter: a new workspace is named after its owner's address, which named it twice.
  subject: `Invitation to the workspace "${workspace}" on Registry Lookup`,
  text:
    `${by} invited you to the workspace "${workspace}" on Registry Lookup, to manage its API keys and see its ` +
    `usage.\n\nAccept: ${base}/invite/${token}\n\nThe link works for seven days. You need an account with this ` +
    `address; sign up at ${base}/signup first if you have none.\n` +
    SIGNATURE,
});

/** The link that moves an account to a new address, mailed to that address. */
export const emailChangeMail = (to: string, base: string, token: string): Mail => ({
  to,
  subject: 'Confirm your new Registry Lookup address',
  text:
    `Someone signed in to Registry Lookup asked to use this address for their account. To confirm, follow:\n\n` +
    `${base}/email/confirm?token=${token}\n\nThe link works once, for one day. If it was not you, ignore this mail: ` +
    `nothing changes.\n` +
    SIGNATURE,
});

/** The new address has an account already: its owner is told, and nothing changes. */
export const emailTakenMail = (to: string, base: string): Mail => ({
  to,
  subject: 'Your Registry Lookup account',
  text:
    `Someone asked to move another Registry Lookup account to this address, which already has one. Nothing has ` +
    `changed.\n\nLog in: ${base}/login\n` +
    SIGNATURE,
});

/** The old address is told of a change asked for, and of a change done. */
export const emailChangeNotice = (to: string, newEmail: string, done: boolean): Mail => ({
  to,
  subject: done ? 'Your Registry Lookup address was changed' : 'A change of your Registry Lookup address',
  text:
    (done
      ? `Your Registry Lookup account now uses the address ${newEmail}; mail no longer comes here.`
      : `Someone signed in to your Registry Lookup account asked to move it to ${newEmail}. It moves once a link ` +
        `mailed there is followed.`) +
    `\n\nIf it was not you, reset your password at once and write to us.\n` +
    SIGNATURE,
});
