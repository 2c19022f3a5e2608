// The player's settings, kept in this browser.

export interface Settings {
  quickSpin: boolean;
  spacebar: boolean;
  sound: boolean;
  volume: number; // 0..100
  intro: boolean;
}

const KEY = "slotforge.settings";
// Sound is off until the player turns it on.
const DEFAULTS: Settings = { quickSpin: false, spacebar: true, sound: false, volume: 60, intro: true };

export function loadSettings(): Settings {
  try {
    return { ...DEFAULTS, ...(JSON.parse(localStorage.getItem(KEY) ?? "{}") as Partial<Settings>) };
  } catch {
    return { ...DEFAULTS };
  }
}

export function saveSettings(settings: Settings): void {
  localStorage.setItem(KEY, JSON.stringify(settings));
}

let audio: AudioContext | null = null;

/** A short tone, made here (no sound files): reel stops, wins. Only after a player's gesture. */
export function beep(settings: Settings, frequency: number, ms = 80): void {
  if (!settings.sound || settings.volume <= 0) return;
  audio ??= new AudioContext();
  const oscillator = audio.createOscillator();
  const gain = audio.createGain();
  oscillator.frequency.value = frequency;
  gain.gain.value = (settings.volume / 100) * 0.08;
  oscillator.connect(gain).connect(audio.destination);
  oscillator.start();
  oscillator.stop(audio.currentTime + ms / 1000);
}
