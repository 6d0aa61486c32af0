"""``lowdim compress``: image compression by PCA of its patches."""

import os

from ._common import UsageError, add_run_arguments, check_outputs, emit_json, positive_int
from ._fitting import progress

HELP = "compress an image with PCA of its patches; write the reconstruction and the error-vs-k curve"


def add_arguments(parser):
    parser.add_argument("image", help="image file (PNG, JPEG, PGM, ...)")
    parser.add_argument("--patch", type=int, default=12, help="patch side in pixels (default 12)")
    parser.add_argument("-k", "--n-components", type=positive_int, default=16, help="components kept (default 16)")
    parser.add_argument("-o", "--output", help="reconstructed image (default IMAGE_k16.png beside the input)")
    parser.add_argument(
        "--curve", metavar="PNG", help="L2 error against k (default OUTPUT_curve.png beside -o, else IMAGE_curve.png)"
    )
    add_run_arguments(parser)


def output_bits(image, output, say):
    """The depth to write the result of ``image`` in: 16 bits for a 16-bit grey input
    when ``output`` can hold them (.png, .tif), saying so when it cannot, and that an
    alpha channel is not carried over."""
    from ..io import DEEP_FORMATS, image_depth

    bits, alpha = image_depth(image)
    if alpha:
        say(f"{image}: its alpha channel is not part of the result ({output} has none).")
    if bits == 16 and not str(output).lower().endswith(DEEP_FORMATS):
        say(f"{image} has 16-bit pixels; {output} holds 8 (write .png or .tif to keep them).")
        return 8
    return bits


def sibling(path, suffix):
    """``photo.jpg`` -> ``photo_SUFFIX.png``."""
    return f"{os.path.splitext(path)[0]}_{suffix}.png"


def run(args, say):
    from ..images import compress_image
    from ..io import read_image, write_image
    from ..plot import error_curve

    output = args.output or sibling(args.image, f"k{args.n_components}")
    curve = args.curve or sibling(args.output or args.image, "curve")  # beside the outputs the user placed
    check_outputs(args, output, curve)
    image = read_image(args.image)
    if args.patch < 2:
        raise UsageError(f"--patch must be at least 2 pixels; got {args.patch}.")
    with progress(None, args, "compress"):
        result = compress_image(image, patch=args.patch, n_components=args.n_components, random_state=args.seed)
    write_image(output, result.reconstruction, args.overwrite, bits=output_bits(args.image, output, say))
    error_curve(
        result.curve["k"],
        result.curve["relative_error"],
        curve,
        chosen=args.n_components,
        overwrite=args.overwrite,
        title=f"{os.path.basename(args.image)}: {args.patch}x{args.patch} patches",
    )
    say(
        f"{args.image}: {image.shape[1]} x {image.shape[0]} pixels, {args.patch}x{args.patch} patches, "
        f"k = {args.n_components}: relative L2 error {result.relative_error:.4f}, "
        f"{result.compression_ratio:.1f}x fewer numbers"
    )
    say("  k: " + "  ".join(f"{k}:{e:.4f}" for k, e in zip(result.curve["k"], result.curve["relative_error"])))
    say(f"wrote {output} and {curve}")
    emit_json(
        args,
        {
            "command": "compress",
            "image": args.image,
            "patch": args.patch,
            "n_components": args.n_components,
            "relative_error": result.relative_error,
            "compression_ratio": result.compression_ratio,
            "curve": result.curve,
            "output": output,
            "curve_plot": curve,
        },
    )
    return 0
