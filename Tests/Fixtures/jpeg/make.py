#!/usr/bin/env python3
"""Makes the JPEG fixtures (ImageMagick's convert for the pixels; the EXIF segments are written
here). Deterministic for one ImageMagick/libjpeg-turbo version; the files are committed, so this
only needs to run to change them.

    python3 Tests/Fixtures/jpeg/make.py

Files: baseline 4:4:4 and 4:2:0, progressive, grey, CMYK (Adobe, inverted), EXIF orientations 2-8
of an asymmetric picture (orient-N.jpg; orient-1.jpg has the tag set to 1), a truncated file.
"""
import os
import struct
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def convert(*args):
    subprocess.run(['convert', *args], check=True)


def exif_app1(orientation):
    """An APP1 Exif segment holding IFD0 with one entry: Orientation (SHORT)."""
    tiff = b'MM\x00\x2a' + struct.pack('>I', 8) + struct.pack('>H', 1)
    tiff += struct.pack('>HHIHH', 0x0112, 3, 1, orientation, 0) + struct.pack('>I', 0)
    body = b'Exif\x00\x00' + tiff
    return b'\xff\xe1' + struct.pack('>H', len(body) + 2) + body


def with_exif(jpeg, orientation):
    assert jpeg[:2] == b'\xff\xd8'
    return jpeg[:2] + exif_app1(orientation) + jpeg[2:]


def main():
    src = os.path.join(HERE, 'source.ppm')
    # 48x32: a horizontal gradient, a vertical one, a white block top-left, a black dot right.
    convert('-size', '48x32', 'gradient:#d02030-#2040e0', '(', '-size', '32x48', 'gradient:#000000-#60ff60',
            '-rotate', '90', ')', '-compose', 'plus', '-composite',
            '-fill', 'white', '-draw', 'rectangle 2,2 13,9', '-fill', 'black', '-draw', 'rectangle 40,20 43,23',
            '-strip', src)
    out = lambda n: os.path.join(HERE, n)
    convert(src, '-strip', '-quality', '90', '-sampling-factor', '1x1', out('baseline-444.jpg'))
    convert(src, '-strip', '-quality', '90', '-sampling-factor', '2x2', out('baseline-420.jpg'))
    convert(src, '-strip', '-quality', '90', '-sampling-factor', '2x1', out('baseline-422.jpg'))
    convert(src, '-strip', '-quality', '85', '-interlace', 'Plane', '-sampling-factor', '2x2', out('progressive.jpg'))
    convert(src, '-strip', '-quality', '90', '-colorspace', 'Gray', out('grey.jpg'))
    convert(src, '-strip', '-quality', '90', '-colorspace', 'CMYK', out('cmyk-adobe.jpg'))
    base = open(out('baseline-444.jpg'), 'rb').read()
    for o in range(1, 9):
        open(out(f'orient-{o}.jpg'), 'wb').write(with_exif(base, o))
    open(out('truncated.jpg'), 'wb').write(base[:len(base) * 2 // 3])
    os.remove(src)


if __name__ == '__main__':
    main()
