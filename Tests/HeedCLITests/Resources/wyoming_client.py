"""A Wyoming client (the PyPI `wyoming` package, as Home Assistant uses it) for the tests.

    wyoming_client.py PORT describe
    wyoming_client.py PORT transcribe FILE.wav [CHUNK_MS]   # the WAV's own rate, width, channels
    wyoming_client.py PORT recognize TEXT
    wyoming_client.py PORT ping

Prints each event received as one JSON line: {"type": ..., "data": ...}.
"""
import asyncio
import json
import sys
import wave

from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.info import Describe, Info
from wyoming.intent import Intent, NotRecognized, Recognize
from wyoming.ping import Ping, Pong


def show(event):
    print(json.dumps({"type": event.type, "data": event.data}), flush=True)


async def main():
    port, action = int(sys.argv[1]), sys.argv[2]
    async with AsyncTcpClient("127.0.0.1", port) as client:
        if action == "describe":
            await client.write_event(Describe().event())
            event = await client.read_event()
            assert Info.is_type(event.type), event.type
            info = Info.from_event(event)  # the package must be able to read it
            assert info.asr and info.intent
            show(event)
        elif action == "ping":
            await client.write_event(Ping(text="hello").event())
            show(await client.read_event())
        elif action == "recognize":
            await client.write_event(Recognize(text=sys.argv[3]).event())
            event = await client.read_event()
            assert Intent.is_type(event.type) or NotRecognized.is_type(event.type), event.type
            show(event)
        elif action == "transcribe":
            chunk_ms = int(sys.argv[4]) if len(sys.argv) > 4 else 100
            with wave.open(sys.argv[3], "rb") as wav:
                rate, width, channels = wav.getframerate(), wav.getsampwidth(), wav.getnchannels()
                await client.write_event(Transcribe(language="en").event())
                await client.write_event(AudioStart(rate=rate, width=width, channels=channels).event())
                frames = max(1, rate * chunk_ms // 1000)
                while True:
                    audio = wav.readframes(frames)
                    if not audio:
                        break
                    await client.write_event(AudioChunk(rate=rate, width=width, channels=channels, audio=audio).event())
            await client.write_event(AudioStop().event())
            event = await client.read_event()
            assert Transcript.is_type(event.type), event.type
            show(event)
            text = Transcript.from_event(event).text
            await client.write_event(Transcript(text=text).event())
            show(await client.read_event())
        else:
            raise SystemExit(f"unknown action {action}")


asyncio.run(main())
