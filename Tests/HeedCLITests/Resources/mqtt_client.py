"""MQTT peers for the service tests (paho-mqtt against a real Mosquitto on loopback).

    mqtt_client.py PORT listen SECONDS TOPIC...       # prints each message: {"topic", "payload"}
    mqtt_client.py PORT satellite SITE FILE.wav       # publishes the recording as Hermes audio frames
    mqtt_client.py PORT publish TOPIC TEXT            # one message

A satellite sends what a Rhasspy satellite sends: a small WAV file per frame (20 ms here) on
hermes/audioServer/SITE/audioFrame, in real time, then a second of silence.
"""
import io
import json
import sys
import time
import wave

import paho.mqtt.client as mqtt


def connect(port):
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client


def listen(port, seconds, topics):
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)

    def on_connect(client, userdata, flags, reason, properties):
        for topic in topics:
            client.subscribe(topic)
        print(json.dumps({"topic": "$connected"}), flush=True)

    def on_message(client, userdata, message):
        try:
            payload = json.loads(message.payload)
        except ValueError:
            payload = None
        print(json.dumps({"topic": message.topic, "payload": payload}), flush=True)

    client.on_connect = on_connect
    client.on_message = on_message
    client.connect("127.0.0.1", port)
    client.loop_start()
    time.sleep(seconds)
    client.loop_stop()


def frame(samples, rate, width, channels):
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(channels)
        wav.setsampwidth(width)
        wav.setframerate(rate)
        wav.writeframes(samples)
    return out.getvalue()


def satellite(port, site, path):
    client = connect(port)
    topic = f"hermes/audioServer/{site}/audioFrame"
    with wave.open(path, "rb") as wav:
        rate, width, channels = wav.getframerate(), wav.getsampwidth(), wav.getnchannels()
        step = rate // 50
        start = time.monotonic()
        sent = 0
        while True:
            samples = wav.readframes(step)
            if not samples:
                break
            client.publish(topic, frame(samples, rate, width, channels)).wait_for_publish()
            sent += 1
            delay = start + sent * 0.02 - time.monotonic()
            if delay > 0:
                time.sleep(delay)
    for _ in range(50):
        client.publish(topic, frame(b"\0" * (step * width * channels), rate, width, channels)).wait_for_publish()
        time.sleep(0.02)
    client.loop_stop()


port, action = int(sys.argv[1]), sys.argv[2]
if action == "listen":
    listen(port, float(sys.argv[3]), sys.argv[4:])
elif action == "publish":
    client = connect(port)
    client.publish(sys.argv[3], sys.argv[4].encode()).wait_for_publish()
    client.loop_stop()
elif action == "satellite":
    satellite(port, sys.argv[3], sys.argv[4])
else:
    raise SystemExit(f"unknown action {action}")
