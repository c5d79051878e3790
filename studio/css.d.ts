/** esbuild bundles the stylesheet the entry point imports into app.css. */
declare module '*.css';
