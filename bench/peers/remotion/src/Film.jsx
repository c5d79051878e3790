// Each scene as Weir lays it out: a colour or the picture as background, the picture (or the clip)
// above the lower third, a title and a text line entering one after the other; scenes joined by
// transitions, an audio bed faded in and out.
import { AbsoluteFill, Audio, Img, interpolate, OffthreadVideo, staticFile, useCurrentFrame } from 'remotion';
import { linearTiming, TransitionSeries } from '@remotion/transitions';
import { fade } from '@remotion/transitions/fade';
import { slide } from '@remotion/transitions/slide';
import { wipe } from '@remotion/transitions/wipe';

// Remotion has no dissolve: a fade stands in for it.
const presentation = (kind) => (kind === 'wipeleft' ? wipe({ direction: 'from-right' }) : kind === 'slideup' ? slide({ direction: 'from-bottom' }) : fade());
const clamp = { extrapolateLeft: 'clamp', extrapolateRight: 'clamp' };
const full = { width: '100%', height: '100%', objectFit: 'cover' };
const upper = { alignItems: 'center', justifyContent: 'flex-start', paddingTop: 60 };

function Scene({ scene, media }) {
  const frame = useCurrentFrame();
  const enter = (delay) => ({
    opacity: interpolate(frame - delay, [0, 12], [0, 1], clamp),
    transform: `translateY(${interpolate(frame - delay, [0, 12], [30, 0], clamp)}px)`,
  });
  const lower = scene.picture || scene.clip;
  return (
    <AbsoluteFill style={{ backgroundColor: scene.colour ?? '#101820' }}>
      {scene.colour === null ? <Img src={staticFile(media.picture)} style={full} /> : null}
      {scene.picture ? (
        <AbsoluteFill style={upper}>
          <Img src={staticFile(media.picture)} style={{ height: 620, objectFit: 'contain' }} />
        </AbsoluteFill>
      ) : null}
      {scene.clip ? (
        <AbsoluteFill style={upper}>
          <OffthreadVideo src={staticFile(media.clip)} muted style={{ height: 620 }} />
        </AbsoluteFill>
      ) : null}
      <AbsoluteFill style={{ justifyContent: lower ? 'flex-end' : 'center', alignItems: 'center', paddingBottom: lower ? 80 : 0, fontFamily: 'DejaVu Sans', color: '#F5F5F5' }}>
        <div style={{ fontSize: 96, fontWeight: 700, ...enter(0) }}>{scene.title}</div>
        <div style={{ fontSize: 48, ...enter(6) }}>{scene.text}</div>
      </AbsoluteFill>
    </AbsoluteFill>
  );
}

export const Film = ({ scenes, media, bed, transitionFrames, durationInFrames }) => (
  <AbsoluteFill>
    <TransitionSeries>
      {scenes.flatMap((s, i) => [
        <TransitionSeries.Sequence key={`s${i}`} durationInFrames={s.frames}>
          <Scene scene={s} media={media} />
        </TransitionSeries.Sequence>,
        ...(s.transition ? [<TransitionSeries.Transition key={`t${i}`} presentation={presentation(s.transition)} timing={linearTiming({ durationInFrames: transitionFrames })} />] : []),
      ])}
    </TransitionSeries>
    <Audio src={staticFile(media.bed)} volume={(f) => bed.volume * Math.max(0, Math.min(1, f / bed.fadeFrames, (durationInFrames - f) / bed.fadeFrames))} />
  </AbsoluteFill>
);
