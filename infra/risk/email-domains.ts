import { createRequire } from 'node:module';

/**
 * Disposable email domains from the maintained `disposable-email-domains` package: exact domains,
 * and wildcard domains whose every subdomain is disposable too.
 */
const require = createRequire(import.meta.url);

export function loadDisposableDomains(): (domain: string) => boolean {
  const exact = new Set<string>(require('disposable-email-domains') as string[]);
  const wildcard = new Set<string>(require('disposable-email-domains/wildcard.json') as string[]);
  return (domain) => {
    const d = domain.toLowerCase();
    if (exact.has(d)) return true;
    const labels = d.split('.');
    for (let i = 0; i < labels.length - 1; i++) if (wildcard.has(labels.slice(i).join('.'))) return true;
    return false;
  };
}
