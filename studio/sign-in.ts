import { api, currentCredential, demoSession, describe, setCredential, type Credential } from './api.js';
import { byId } from './dom.js';

/**
 * Sign-in: an API key or a bearer token pasted by the user, or the same-origin demo (when the
 * server lists this origin in VIDEO_DEMO_ORIGINS). A credential is checked with GET /api/health,
 * which names its organization, before the studio uses it.
 */

export function mountSignIn(onSignedIn: (orgId: string) => void, onSignedOut: () => void): void {
  const dialog = byId('sign-in');
  const form = byId<HTMLFormElement>('sign-in-form');
  const kind = byId<HTMLSelectElement>('credential-kind');
  const value = byId<HTMLInputElement>('credential-value');
  const error = byId('sign-in-error');
  const who = byId('who');
  const page = document.querySelector('main')!;

  /** The dialog is modal: while it shows, the page behind it takes no focus or clicks. */
  function showDialog(on: boolean): void {
    dialog.hidden = !on;
    page.inert = on;
    if (on) value.focus();
  }

  async function tryCredential(c: Credential): Promise<void> {
    setCredential(c);
    try {
      const { body } = await api<{ orgId: string }>('GET', '/api/health');
      showDialog(false);
      who.textContent = `Organization ${body.orgId} (${c.kind === 'key' ? 'API key' : c.kind === 'bearer' ? 'bearer token' : 'demo'})`;
      document.body.classList.add('signed-in');
      onSignedIn(body.orgId);
    } catch (err) {
      setCredential(null);
      error.textContent = `Sign-in refused: ${describe(err)}`;
      showDialog(true);
    }
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = value.value.trim();
    if (!v) {
      error.textContent = 'Enter an API key or a token';
      return;
    }
    void tryCredential({ kind: kind.value === 'bearer' ? 'bearer' : 'key', value: v });
  });
  byId('demo-sign-in').addEventListener('click', () => {
    void demoSession()
      .then(tryCredential)
      .catch((err: unknown) => (error.textContent = `The demo is not available here: ${describe(err)}`));
  });
  byId('sign-out').addEventListener('click', () => {
    setCredential(null);
    document.body.classList.remove('signed-in');
    who.textContent = '';
    value.value = '';
    showDialog(true);
    onSignedOut();
  });

  const saved = currentCredential();
  if (saved) void tryCredential(saved);
  else showDialog(true);
}
