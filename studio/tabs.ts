import { byId } from './dom.js';

/** The side panels as ARIA tabs: arrow keys, Home and End move between them (WAI-ARIA tabs pattern). */
export function mountTabs(onOpen: (panel: string) => void): void {
  const list = byId('tabs');
  const tabs = [...list.querySelectorAll<HTMLButtonElement>('[role=tab]')];
  const select = (tab: HTMLButtonElement, focus: boolean) => {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      byId(t.getAttribute('aria-controls')!).hidden = !on;
    }
    if (focus) tab.focus();
    onOpen(tab.getAttribute('aria-controls')!);
  };
  list.addEventListener('click', (e) => {
    const tab = (e.target as HTMLElement).closest<HTMLButtonElement>('[role=tab]');
    if (tab) select(tab, false);
  });
  list.addEventListener('keydown', (e) => {
    const i = tabs.indexOf(document.activeElement as HTMLButtonElement);
    if (i < 0) return;
    const next = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    select(tabs[(next + tabs.length) % tabs.length]!, true);
  });
  select(tabs[0]!, false);
}
