"""``lowdim denoise``: remove noise by projecting overlapping patches on their top components."""

import numpy as np

from ._common import add_run_arguments, check_outputs, emit_json, positive_int
from ._compress import output_bits, sibling
from ._fitting import progress

HELP = "denoise an image with PCA of its overlapping patches"


def add_arguments(parser):
    parser.add_argument("image", help="image file (PNG, JPEG, PGM, ...)")
    parser.add_argument("-k", "--n-components", type=positive_int, default=15, help="components kept (default 15)")
    parser.add_argument("--patch", type=int, default=8, help="patch side in pixels (default 8)")
    parser.add_argument("--stride", type=int, help="patch step (default 1; 2 above one megapixel)")
    parser.add_argument("--reference", help="clean image to report the error against (PSNR)")
    parser.add_argument("-o", "--output", help="denoised image (default IMAGE_denoised.png)")
    add_run_arguments(parser)


def psnr(image, reference):
    """Peak signal-to-noise ratio in dB for images in [0, 1]."""
    mse = float(np.mean((np.asarray(image) - np.asarray(reference)) ** 2))
    return float("inf") if mse == 0 else 10 * np.log10(1.0 / mse)


def run(args, say):
    from ..exceptions import DataFileError
    from ..images import denoise_image
    from ..io import read_image, write_image

    output = args.output or sibling(args.image, "denoised")
    check_outputs(args, output)
    image = read_image(args.image)
    with progress(None, args, "denoise"):
        cleaned = denoise_image(
            image, n_components=args.n_components, patch=args.patch, stride=args.stride, random_state=args.seed
        )
    write_image(output, cleaned, args.overwrite, bits=output_bits(args.image, output, say))
    summary = {"command": "denoise", "image": args.image, "n_components": args.n_components, "output": output}
    if args.reference:
        reference = read_image(args.reference, grey=image.ndim == 2)
        if reference.shape != image.shape:
            raise DataFileError(f"{args.reference}: shape {reference.shape} differs from {args.image}'s {image.shape}.")
        summary.update(psnr_input=psnr(image, reference), psnr_output=psnr(cleaned, reference))
        say(f"PSNR against {args.reference}: {summary['psnr_input']:.2f} dB -> {summary['psnr_output']:.2f} dB")
    say(f"wrote {output}")
    emit_json(args, summary)
    return 0
