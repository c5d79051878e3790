/** A script the compile and render routes take, the example of their OpenAPI documents. */
export const SCRIPT_EXAMPLE = {
  source: 'film "Launch Day"\nmood confident\n\nscene "Intro" 3s\n  title "Hello"\n  text "Ships today"\n',
  theme: 'midnight',
  preview: true,
};

/** A template the template routes take: its script compiles with the variables' examples. */
export const TEMPLATE_EXAMPLE = {
  name: 'launch',
  description: 'A product launch teaser',
  version: '1',
  variables: [{ name: 'product', type: 'string', required: true, example: 'Weir' }],
  defaults: { mood: 'confident', aspect: '16:9' },
  source: 'film "{{product}} launch"\nscene "Intro" 3s\n  title "{{product}}"\n  text "Ships today"\n',
};
