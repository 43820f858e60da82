// The chime when the turn comes: two short notes made with WebAudio (no sound file), unless turned off (remembered
// on this browser).
const SOUND_KEY = "ttr.turnSound";
let audio = null;

export const soundOn = () => localStorage.getItem(SOUND_KEY) !== "off";
export const setSound = (on) => localStorage.setItem(SOUND_KEY, on ? "on" : "off");

// Answers 1 when it sounded, 0 when it could not: a browser plays nothing before the person has pressed
// something on the page (and would say so in the console), so it is not even tried until then.
export function chime() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context || navigator.userActivation?.hasBeenActive === false) return 0;
  try {
    audio = audio || new Context();
    audio.resume?.();
    const start = audio.currentTime + 0.02;
    [[659.3, 0], [987.8, 0.13]].forEach(([frequency, at]) => {
      const tone = audio.createOscillator(), gain = audio.createGain();
      tone.type = "sine";
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, start + at);
      gain.gain.exponentialRampToValueAtTime(0.18, start + at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + at + 0.32);
      tone.connect(gain).connect(audio.destination);
      tone.start(start + at);
      tone.stop(start + at + 0.35);
    });
    return 1;
  } catch {
    return 0;
  }
}
