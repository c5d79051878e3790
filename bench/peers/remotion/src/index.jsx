// The benchmark film as a Remotion composition; its scenes come as props (bench/peers/edge/film.ts).
import { Composition, registerRoot } from 'remotion';
import { Film } from './Film.jsx';

const Root = () => (
  <Composition
    id="Film"
    component={Film}
    width={1920}
    height={1080}
    fps={30}
    durationInFrames={900}
    defaultProps={{ scenes: [], media: {}, bed: { volume: 1, fadeFrames: 1 }, transitionFrames: 15, durationInFrames: 900, fps: 30, width: 1920, height: 1080 }}
    calculateMetadata={({ props }) => ({ durationInFrames: props.durationInFrames, fps: props.fps, width: props.width, height: props.height })}
  />
);

registerRoot(Root);
